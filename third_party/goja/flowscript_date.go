package goja

import "time"

// FlowScript patch 32: local times that a zone's transition skips or
// repeats.

// dateIn is time.Date(year, month, day, hour, min, sec, nsec, loc) read as
// ECMAScript's UTC(t) reads a local time (ECMA-262 §21.4.1.26): of the
// instants whose wall clock in loc it is, the earliest; where a transition
// skips it (a gap, as when clocks go forward), the wall clock read with the
// offset in force before the transition, which moves it forward. Go picks
// the offset after the transition in a gap (23:00 of the day before for a
// midnight that does not exist) and, east of Greenwich, the later of two
// repeated instants.
func dateIn(year int, month time.Month, day, hour, min, sec, nsec int, loc *time.Location) time.Time {
	if loc == time.UTC {
		return time.Date(year, month, day, hour, min, sec, nsec, loc)
	}
	wall := time.Date(year, month, day, hour, min, sec, 0, time.UTC).Unix()
	offsetAt := func(unix int64) int64 {
		_, o := time.Unix(unix, 0).In(loc).Zone()
		return int64(o)
	}
	// A day either side: no zone has had two transitions closer than that.
	before := offsetAt(wall - 86400)
	at, found := int64(0), false
	for _, o := range [...]int64{before, offsetAt(wall), offsetAt(wall + 86400)} {
		if c := wall - o; offsetAt(c) == o && (!found || c < at) {
			at, found = c, true
		}
	}
	if !found { // in a gap
		at = wall - before
	}
	return time.Unix(at, int64(nsec)).In(loc)
}
