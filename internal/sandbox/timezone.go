package sandbox

import "time"

// UseTimeZone makes loc the zone JavaScript's Date works in, for every
// runtime of this process: the engine reads time.Local. Call it once at
// start, before any script runs (a worker process does, with
// Limits.TimeZone), so the host's own zone never leaks into scripts.
func UseTimeZone(loc *time.Location) {
	if loc == nil {
		loc = time.UTC
	}
	time.Local = loc
}
