//go:build race

package workerpool

// raceEnabled: the race detector maps terabytes of shadow address space at
// start, so race builds set no RLIMIT_AS and rely on the worker's heap
// watchdog, which also exits the worker past its hard budget.
const raceEnabled = true
