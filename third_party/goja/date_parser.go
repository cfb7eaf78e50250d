package goja

import (
	"strings"
)

type date struct {
	year, month, day     int
	hour, min, sec, msec int
	timeZoneOffset       int // time zone offset in minutes
	isLocal              bool
}

func skip(s string, c byte) (string, bool) {
	if len(s) > 0 && s[0] == c {
		return s[1:], true
	}
	return s, false
}

// skipFold is skip of an upper-case letter c or its lower case.
func skipFold(s string, c byte) (string, bool) {
	if len(s) > 0 && (s[0] == c || s[0] == c+'a'-'A') {
		return s[1:], true
	}
	return s, false
}

func skipSpaces(s string) string {
	for len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	return s
}

func skipUntil(s string, stopList string) string {
	for len(s) > 0 && !strings.ContainsRune(stopList, rune(s[0])) {
		s = s[1:]
	}
	return s
}

func match(s string, lower string) (string, bool) {
	if len(s) < len(lower) {
		return s, false
	}
	for i := 0; i < len(lower); i++ {
		c1 := s[i]
		c2 := lower[i]
		if c1 != c2 {
			// switch to lower-case; 'a'-'A' is known to be a single bit
			c1 |= 'a' - 'A'
			if c1 != c2 || c1 < 'a' || c1 > 'z' {
				return s, false
			}
		}
	}
	return s[len(lower):], true
}

func getDigits(s string, minDigits, maxDigits int) (int, string, bool) {
	var i, v int
	for i < len(s) && i < maxDigits && s[i] >= '0' && s[i] <= '9' {
		v = v*10 + int(s[i]-'0')
		i++
	}
	if i < minDigits {
		return 0, s, false
	}
	return v, s[i:], true
}

func startsWithDigit(s string) bool { return len(s) > 0 && s[0] >= '0' && s[0] <= '9' }

func getMilliseconds(s string) (int, string) {
	mul, v := 100, 0
	if len(s) > 0 && s[0] == '.' { // not ',', as in V8 (FlowScript patch 34)
		const I_START = 1
		i := I_START
		for i < len(s) && i-I_START < 9 && s[i] >= '0' && s[i] <= '9' {
			v += int(s[i]-'0') * mul
			mul /= 10
			i++
		}
		if i > I_START {
			// only consume the separator if digits are present
			return v, s[i:]
		}
	}
	return 0, s
}

// [+-]HH:mm or [+-]HHmm or Z
func getTimeZoneOffset(s string, strict bool) (int, string, bool) {
	if len(s) == 0 {
		return 0, s, false
	}
	sign := s[0]
	if sign == '+' || sign == '-' {
		var hh, mm, v int
		var ok bool
		t := s[1:]
		n := len(t)
		if hh, t, ok = getDigits(t, 1, 9); !ok {
			return 0, s, false
		}
		n -= len(t)
		if strict && n != 2 && n != 4 {
			return 0, s, false
		}
		for n > 4 {
			n -= 2
			hh /= 100
		}
		if n > 2 {
			mm = hh % 100
			hh = hh / 100
		} else if t, ok = skip(t, ':'); !ok && strict {
			return 0, s, false // ISO: ±HH:mm or ±HHmm, never ±HH, as in V8 (FlowScript patch 37)
		} else if ok {
			if mm, t, ok = getDigits(t, 2, 2); !ok {
				return 0, s, false
			}
		}
		if hh > 23 || mm > 59 {
			return 0, s, false
		}
		v = hh*60 + mm
		if sign == '-' {
			v = -v
		}
		return v, t, true
	} else if sign == 'Z' || sign == 'z' { // V8 takes z too (FlowScript patch 34)
		return 0, s[1:], true
	}
	return 0, s, false
}

var tzAbbrs = []struct {
	nameLower string
	offset    int
}{
	{"gmt", 0},       // Greenwich Mean Time
	{"utc", 0},       // Coordinated Universal Time
	{"ut", 0},        // Universal Time
	{"z", 0},         // Zulu Time
	{"edt", -4 * 60}, // Eastern Daylight Time
	{"est", -5 * 60}, // Eastern Standard Time
	{"cdt", -5 * 60}, // Central Daylight Time
	{"cst", -6 * 60}, // Central Standard Time
	{"mdt", -6 * 60}, // Mountain Daylight Time
	{"mst", -7 * 60}, // Mountain Standard Time
	{"pdt", -7 * 60}, // Pacific Daylight Time
	{"pst", -8 * 60}, // Pacific Standard Time
	// Upstream also read WET, WEST, CET, CEST, EET and EEST, which V8 does
	// not know: Date.parse('Jan 15 2024 10:00 CET') is NaN there
	// (FlowScript patch 139).
}

func getTimeZoneAbbr(s string) (int, string, bool) {
	for _, tzAbbr := range tzAbbrs {
		if s, ok := match(s, tzAbbr.nameLower); ok {
			return tzAbbr.offset, s, true
		}
	}
	return 0, s, false
}

var monthNamesLower = []string{
	"jan",
	"feb",
	"mar",
	"apr",
	"may",
	"jun",
	"jul",
	"aug",
	"sep",
	"oct",
	"nov",
	"dec",
}

func getMonth(s string) (int, string, bool) {
	for i, monthNameLower := range monthNamesLower {
		if s, ok := match(s, monthNameLower); ok {
			return i + 1, s, true
		}
	}
	return 0, s, false
}

func parseDateISOString(s string) (date, bool) {
	if len(s) == 0 {
		return date{}, false
	}
	var d = date{month: 1, day: 1}
	var ok bool

	// year is either yyyy digits or [+-]yyyyyy
	sign := s[0]
	if sign == '-' || sign == '+' {
		s = s[1:]
		if d.year, s, ok = getDigits(s, 6, 6); !ok {
			return date{}, false
		}
		if sign == '-' {
			if d.year == 0 {
				// reject -000000
				return date{}, false
			}
			d.year = -d.year
		}
	} else if d.year, s, ok = getDigits(s, 4, 4); !ok {
		return date{}, false
	}
	if s, ok = skip(s, '-'); ok {
		if d.month, s, ok = getDigits(s, 2, 2); !ok || d.month < 1 {
			return date{}, false
		}
		if s, ok = skip(s, '-'); ok {
			if d.day, s, ok = getDigits(s, 2, 2); !ok || d.day < 1 {
				return date{}, false
			}
		}
	}
	if s, ok = skipFold(s, 'T'); ok { // a lowercase t too, as V8 (FlowScript patch 68)
		if d.hour, s, ok = getDigits(s, 2, 2); !ok {
			return date{}, false
		}
		if s, ok = skip(s, ':'); !ok {
			return date{}, false
		}
		if d.min, s, ok = getDigits(s, 2, 2); !ok {
			return date{}, false
		}
		if s, ok = skip(s, ':'); ok {
			if d.sec, s, ok = getDigits(s, 2, 2); !ok {
				return date{}, false
			}
			d.msec, s = getMilliseconds(s)
		}
		d.isLocal = true
	}
	// parse the time zone offset if present
	if len(s) > 0 {
		if d.timeZoneOffset, s, ok = getTimeZoneOffset(s, true); !ok {
			return date{}, false
		}
		d.isLocal = false
	}
	// error if extraneous characters
	return d, len(s) == 0
}

// meridiem reads an "am" or "pm" (after spaces) at the start of s and
// returns the rest and hour on the 24-hour clock; found is false when s
// has neither. An hour past 12 before it makes the date invalid, as in V8
// (FlowScript patch 121: "13:30 PM" was 13:30): h is then -1.
func meridiem(s string, hour int) (rest string, h int, found bool) {
	t := skipSpaces(s)
	if hour > 12 {
		if _, ok := match(t, "pm"); ok {
			return s, -1, true
		}
		if _, ok := match(t, "am"); ok {
			return s, -1, true
		}
	}
	if t, ok := match(t, "pm"); ok {
		if hour < 12 {
			hour += 12
		}
		return t, hour, true
	}
	if t, ok := match(t, "am"); ok {
		if hour == 12 {
			hour = 0
		}
		return t, hour, true
	}
	return s, hour, false
}

func parseDateOtherString(s string) (date, bool) {
	var d = date{
		year:    2001,
		month:   1,
		day:     1,
		isLocal: true,
	}
	var nums [3]int
	var numIndex int
	var hasYear, hasMon, hasTime, ok bool
	// utc: a GMT, UTC or UT was read; a sign after it starts an offset
	// with or without a time, as in V8 ("Jan 15 2024 GMT-3"; FlowScript
	// patch 122).
	var utc bool
	for {
		s = skipSpaces(s)
		if len(s) == 0 {
			break
		}
		c := s[0]
		val := 0
		if c == '+' || c == '-' {
			if hasTime || utc {
				if val, s, ok = getTimeZoneOffset(s, false); ok {
					d.timeZoneOffset = val
					d.isLocal = false
					// "1:00:00-03:00 pm": V8 reads the am or pm after the
					// offset too (FlowScript patch 37).
					if t, hour, found := meridiem(s, d.hour); found {
						if hour < 0 {
							return date{}, false
						}
						s, d.hour = t, hour
					}
				}
			}
			if !(hasTime || utc) || !ok {
				s = s[1:]
				if val, s, ok = getDigits(s, 1, 9); ok && startsWithDigit(s) {
					return date{}, false // a year of ten digits or more: past any date (FlowScript patch 34)
				}
				if ok {
					d.year = val
					if c == '-' {
						if d.year == 0 {
							return date{}, false
						}
						d.year = -d.year
					}
					hasYear = true
				}
			}
		} else if val, s, ok = getDigits(s, 1, 9); ok {
			if startsWithDigit(s) {
				// Ten digits or more, a Unix time in a string say: no date,
				// as in V8, where upstream read its first nine as a year
				// (FlowScript patch 34).
				return date{}, false
			}
			if s, ok = skip(s, ':'); ok {
				// time part
				d.hour = val
				if d.min, s, ok = getDigits(s, 1, 2); !ok {
					return date{}, false
				}
				withMsec := false
				if s, ok = skip(s, ':'); ok {
					if d.sec, s, ok = getDigits(s, 1, 2); !ok {
						return date{}, false
					}
					rest := s
					d.msec, s = getMilliseconds(s)
					withMsec = len(s) < len(rest)
				}
				// FlowScript patch 62: as in V8, a time that ends at its
				// minutes or seconds is followed by the end, a space, Z or an
				// offset's sign: "10:00pm", "10:00:00,5" and "10:00:00GMT"
				// are no dates.
				if !withMsec && len(s) > 0 && !strings.ContainsRune(" \t\n\r\v\fZz+-", rune(s[0])) {
					return date{}, false
				}
				hasTime = true
				if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
					// An offset right after the time ("14:00:00-03:00",
					// Python's and PostgreSQL's form): not a separator to
					// drop below, which read -03:00 as a second time, 03:00
					// (FlowScript patch 37).
					continue
				}
				if t, hour, found := meridiem(s, d.hour); found {
					if hour < 0 {
						return date{}, false
					}
					s, d.hour = t, hour
					continue
				}
			} else {
				// FlowScript patch 62: every number of the date goes to the
				// composer below, which tells the year, the month and the day
				// apart by their values as V8 does; upstream took one of
				// three digits or over 31 for the year as it came, so
				// 01/32/2024 was a date in 2032.
				if numIndex == 3 {
					return date{}, false
				}
				nums[numIndex] = val
				numIndex++
			}
		} else if val, s, ok = getMonth(s); ok {
			d.month = val
			hasMon = true
			s = skipUntil(s, "0123456789 -/(")
		} else if val, s, ok = getTimeZoneAbbr(s); ok {
			d.timeZoneOffset = val
			utc = val == 0
			if len(s) > 0 {
				if c := s[0]; (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
					return date{}, false
				}
			}
			d.isLocal = false
			continue
		} else if c == '(' {
			// skip parenthesized phrase
			level := 1
			s = s[1:]
			for len(s) > 0 && level != 0 {
				if s[0] == '(' {
					level++
				} else if s[0] == ')' {
					level--
				}
				s = s[1:]
			}
			if level > 0 {
				return date{}, false
			}
		} else if c == ')' {
			return date{}, false
		} else {
			if hasYear || hasMon || hasTime || numIndex > 0 {
				return date{}, false
			}
			// skip a word (FlowScript patch 62: a word of letters ends at a
			// colon, so "time:Jan" is a word and a month, as V8 reads it; a
			// number right after it, "a1", is no date)
			if isASCIILetter(c) {
				for len(s) > 0 && isASCIILetter(s[0]) {
					s = s[1:]
				}
				if startsWithDigit(s) {
					return date{}, false
				}
				if s, ok = skip(s, ':'); ok {
					continue
				}
			}
			s = skipUntil(s, " -/(")
		}
		for len(s) > 0 && strings.ContainsRune("-/.,", rune(s[0])) {
			s = s[1:]
		}
	}
	if !hasYear {
		return composeDate(d, nums, numIndex, hasMon)
	}
	// A signed year ("-271821/4/20"): the other numbers are the month and
	// the day, or the day alone after a month name.
	n := numIndex + 1
	if hasMon {
		n++
	}
	if n > 3 {
		return date{}, false
	}
	switch {
	case numIndex == 1 && hasMon:
		d.day = nums[0]
	case numIndex == 1:
		d.month = nums[0]
	case numIndex == 2:
		d.month, d.day = nums[0], nums[1]
	}
	return d, d.month > 0 && d.day > 0
}

// composeDate reads the numbers of a date without a signed year as V8's
// DayComposer does (FlowScript patch 62): the missing ones are 1; without
// a month name, Y/M/D when the first is no day (1-31), else M/D/Y; with
// one, the day and the year in either order, the first being the year
// when it is no day. Years 0-49 are 2000-2049, 50-99 1950-1999. A month
// outside 1-12 or a day outside 1-31 is no date (02/30 rolls over, as
// there).
func composeDate(d date, nums [3]int, n int, hasMon bool) (date, bool) {
	if n == 0 {
		return date{}, false
	}
	for ; n < 3; n++ {
		nums[n] = 1
	}
	isDay := func(v int) bool { return v >= 1 && v <= 31 }
	switch {
	case !hasMon && !isDay(nums[0]):
		d.year, d.month, d.day = nums[0], nums[1], nums[2]
	case !hasMon:
		d.month, d.day, d.year = nums[0], nums[1], nums[2]
	case !isDay(nums[0]):
		d.year, d.day = nums[0], nums[1]
	default:
		d.day, d.year = nums[0], nums[1]
	}
	if d.year >= 0 && d.year <= 49 {
		d.year += 2000
	} else if d.year >= 50 && d.year <= 99 {
		d.year += 1900
	}
	return d, d.month >= 1 && d.month <= 12 && isDay(d.day)
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
