// Package textcut shortens text for messages: the one UTF-8-safe
// truncation of the code base (error messages in the sandbox's replies and
// in result events). It must never split a rune or return more bytes than
// asked. It also says where bytes stop being UTF-8 (InvalidAt), for the
// messages that refuse such text.
package textcut

import (
	"strconv"
	"unicode/utf8"
)

// Ellipsis marks a cut text.
const Ellipsis = "…"

// Cut returns s when limit < 0 or s fits in limit bytes; otherwise s cut on
// a rune boundary and ended with Ellipsis, limit bytes at most. The bool
// reports the cut.
func Cut(s string, limit int) (string, bool) {
	if limit < 0 || len(s) <= limit {
		return s, false
	}
	n := max(limit-len(Ellipsis), 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	if limit < len(Ellipsis) {
		return "", true
	}
	return s[:n] + Ellipsis, true
}

// Quote is s quoted as Go quotes a string (strconv.Quote), for a message
// that names a value the caller sent: s is cut first to limit bytes, and a
// cut text ends in Ellipsis outside the quotes.
func Quote(s string, limit int) string {
	c, cut := Cut(s, limit)
	switch {
	case !cut:
		return strconv.Quote(c)
	case c == "": // no room even for the mark
		return `""` + Ellipsis
	}
	return strconv.Quote(c[:len(c)-len(Ellipsis)]) + Ellipsis
}

// InvalidAt is the offset of the first byte of b that is not UTF-8, or -1
// when b is UTF-8 text.
func InvalidAt(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}
