//go:build !race

package goja

const raceEnabled = false
