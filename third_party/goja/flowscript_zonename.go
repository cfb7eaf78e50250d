package goja

import (
	"fmt"
	"time"
)

// FlowScript patch 51: Date's toString and toTimeString name the zone as
// V8 does, by its long name from Unicode CLDR (GMT-0300 (Brasilia
// Standard Time)); upstream wrote the zone's abbreviation from the tz
// database, which for most of Latin America is only the offset again
// (GMT-0300 (-03)).
//
// V8 writes the zone's standard or its daylight name as of today (its
// current metazone: Cancún's winter of 2005, at GMT-0600, is "Eastern
// Standard Time"), whichever ICU's DST offset at the instant says, and for
// an instant before 1970 or after 2038-01-19 at the same day of an
// equivalent year of 2008-2037; a zone without such a name has an offset,
// GMT-03:00. flowscript_zonenames.go, generated from Node for every zone of
// the tz database, keys those names by the UTC offset in effect, which Go
// knows as ICU does (Go's IsDST is not ICU's: Dublin's winter is daylight
// saving for the tz database and standard for ICU). A zone it does not
// list (a FixedZone; Local when time.Local was not set from a zone's name)
// has its abbreviation, or GMT-03:00 where the abbreviation is only the
// offset.

// zoneNameRule: from the instant from (Unix seconds; 0 is from the start)
// until the next rule with the same offset, the offset (seconds east of
// UTC) is named zoneNameList[name].
type zoneNameRule struct {
	from   int32
	offset int32
	name   uint16
}

// maxEpochMs is V8's DateCache::kMaxEpochTimeInMs: a later instant, or one
// before 1970, is named as its equivalent time.
const maxEpochMs = int64(1<<31-1) * 1000

// zoneName is how V8 names the zone t is in, in parentheses after the
// offset.
func zoneName(t time.Time) string {
	loc := t.Location()
	table, ok := zoneNameTables[loc.String()]
	if !ok {
		abbr, offset := t.Zone()
		if abbr != "" && (abbr[0] == '+' || abbr[0] == '-') {
			// The tz database has no name for it, only the offset: V8
			// writes that as GMT-03:00.
			return zoneNameGMT(offset)
		}
		return abbr
	}
	if ms := t.UnixMilli(); ms < 0 || ms > maxEpochMs {
		t = equivalentTime(t.UTC()).In(loc)
	}
	_, offset := t.Zone()
	sec := t.Unix()
	name := -1
	for _, r := range zoneNameRules[table] { // by from
		if r.offset == int32(offset) && int64(r.from) <= sec {
			name = int(r.name)
		}
	}
	if name < 0 {
		return zoneNameGMT(offset)
	}
	return zoneNameList[name]
}

// equivalentTime is V8's DateCache::EquivalentTime: the same day and time
// of day (UTC) of the year of 2008-2037 that is a leap year if year is and
// begins on the same weekday.
func equivalentTime(t time.Time) time.Time {
	year := t.Year()
	leap := year%4 == 0 && (year%100 != 0 || year%400 == 0)
	weekday := int(time.Date(year, time.January, 1, 0, 0, 0, 0, time.UTC).Weekday())
	recent := 1967
	if leap {
		recent = 1956
	}
	recent += weekday * 12 % 28
	year = 2008 + (recent+3*28-2008)%28
	return time.Date(year, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// zoneNameGMT is an offset as ICU's localized GMT format writes it:
// GMT-03:00, GMT+05:21:10.
func zoneNameGMT(offset int) string {
	sign := byte('+')
	if offset < 0 {
		sign, offset = '-', -offset
	}
	if offset%60 != 0 {
		return fmt.Sprintf("GMT%c%02d:%02d:%02d", sign, offset/3600, offset/60%60, offset%60)
	}
	return fmt.Sprintf("GMT%c%02d:%02d", sign, offset/3600, offset/60%60)
}

// formatWithZone is t in layout, which ends in "GMT-0700", followed by the
// zone's name in parentheses. A name may not be ASCII (Türkiye Standard
// Time, Réunion Time): its callers make a String of it with newStringValue.
func formatWithZone(t time.Time, layout string) string {
	return t.Format(layout) + " (" + zoneName(t) + ")"
}
