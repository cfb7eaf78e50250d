//go:build !race

package workerpool

const raceEnabled = false
