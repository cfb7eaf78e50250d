//go:build race

package goja

// raceEnabled: the race detector's build, where sync.Pool drops what it is
// given at random (Go's regexp then makes a machine per match), so
// allocation bounds do not hold.
const raceEnabled = true
