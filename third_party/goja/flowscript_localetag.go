package goja

import "strings"

// FlowScript patch 102: locale tags checked as V8 checks them. A locales
// argument is read as ECMA-402's CanonicalizeLocaleList reads it: every
// element of a list is checked, not only the first that is used, and a tag
// that is not a Unicode BCP 47 locale identifier is V8's RangeError, with
// V8's message for each way it can fail.

// localeTagError is the message of V8's RangeError for tag, or "" when tag
// is a well-formed locale identifier. A tag that does not start with a
// language identifier (language, script, region, variants: 'en_US',
// 'zh-min-nan', 'root') is "Incorrect locale information provided", as V8's
// JSLocale::StartsWithUnicodeLanguageId decides it; one whose rest ICU
// cannot parse (a duplicate variant or singleton, an empty extension, a
// trailing '-') is "Invalid language tag: " and the tag in lower case.
func localeTagError(tag string) string {
	if !startsWithLanguageID(tag) {
		return "Incorrect locale information provided"
	}
	if lower := asciiLower(tag); !wellFormedLocale(lower) {
		return "Invalid language tag: " + lower
	}
	return ""
}

// startsWithLanguageID is V8's JSLocale::StartsWithUnicodeLanguageId: the
// subtags up to the first singleton are a language identifier. It splits
// as std::getline does, so a trailing '-' adds no empty subtag.
func startsWithLanguageID(tag string) bool {
	subtags := strings.Split(strings.TrimSuffix(tag, "-"), "-")
	if !isLanguageSubtag(subtags[0]) {
		return false
	}
	i := 1
	if i < len(subtags) && isSingleton(subtags[i]) {
		return true
	}
	if i < len(subtags) && isScriptSubtag(subtags[i]) {
		i++
	}
	if i < len(subtags) && isRegionSubtag(subtags[i]) {
		i++
	}
	for ; i < len(subtags); i++ {
		if isSingleton(subtags[i]) {
			return true
		}
		if !isVariantSubtag(subtags[i]) {
			return false
		}
	}
	return true
}

// wellFormedLocale reports whether tag, in lower case and starting with a
// language identifier, is a whole unicode_locale_id (UTS #35): no empty
// subtag, no variant or singleton twice, and each extension well formed.
func wellFormedLocale(tag string) bool {
	subtags := strings.Split(tag, "-")
	i := 1
	if i < len(subtags) && isScriptSubtag(subtags[i]) {
		i++
	}
	if i < len(subtags) && isRegionSubtag(subtags[i]) {
		i++
	}
	variants := map[string]bool{}
	for ; i < len(subtags) && !isSingleton(subtags[i]); i++ {
		if !isVariantSubtag(subtags[i]) || variants[subtags[i]] {
			return false
		}
		variants[subtags[i]] = true
	}
	singletons := map[string]bool{}
	for i < len(subtags) {
		s := subtags[i]
		if !isSingleton(s) || singletons[s] {
			return false
		}
		singletons[s] = true
		end := i + 1
		for end < len(subtags) && !isSingleton(subtags[end]) || s == "x" && end < len(subtags) {
			end++
		}
		if !wellFormedExtension(s, subtags[i+1:end]) {
			return false
		}
		i = end
	}
	return true
}

// wellFormedExtension reports whether the subtags after singleton s make
// its extension: a private use (x) runs to the tag's end.
func wellFormedExtension(s string, subtags []string) bool {
	if len(subtags) == 0 {
		return false
	}
	switch s {
	case "x":
		for _, t := range subtags {
			if !isAlnum(t, 1, 8) {
				return false
			}
		}
		return true
	case "u":
		i := 0
		for i < len(subtags) && isAlnum(subtags[i], 3, 8) { // attributes
			i++
		}
		for i < len(subtags) { // keywords: a key, then its type's subtags
			if !isUnicodeKey(subtags[i]) {
				return false
			}
			for i++; i < len(subtags) && isAlnum(subtags[i], 3, 8); i++ {
			}
		}
		return true
	case "t":
		i := 0
		if isLanguageSubtag(subtags[0]) { // tlang
			i++
			if i < len(subtags) && isScriptSubtag(subtags[i]) {
				i++
			}
			if i < len(subtags) && isRegionSubtag(subtags[i]) {
				i++
			}
			for i < len(subtags) && isVariantSubtag(subtags[i]) {
				i++
			}
		}
		for i < len(subtags) { // tfields: a key, then at least one value
			if !isTransformKey(subtags[i]) {
				return false
			}
			start := i + 1
			for i = start; i < len(subtags) && isAlnum(subtags[i], 3, 8); i++ {
			}
			if i == start {
				return false
			}
		}
		return true
	}
	for _, t := range subtags {
		if !isAlnum(t, 2, 8) {
			return false
		}
	}
	return true
}

// isAlnum reports whether s is min to max ASCII letters and digits.
func isAlnum(s string, minLen, maxLen int) bool {
	if len(s) < minLen || len(s) > maxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) && !isASCIIDigit(s[i]) {
			return false
		}
	}
	return true
}

func isAlpha(s string, minLen, maxLen int) bool {
	if len(s) < minLen || len(s) > maxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) {
			return false
		}
	}
	return true
}

// asciiLower is s with its ASCII letters in lower case, as V8 folds a tag.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }

// isLanguageSubtag: 2–3 or 5–8 letters.
func isLanguageSubtag(s string) bool {
	return isAlpha(s, 2, 3) || isAlpha(s, 5, 8)
}

func isScriptSubtag(s string) bool { return isAlpha(s, 4, 4) }

// isRegionSubtag: 2 letters or 3 digits.
func isRegionSubtag(s string) bool {
	return isAlpha(s, 2, 2) || len(s) == 3 && isASCIIDigit(s[0]) && isASCIIDigit(s[1]) && isASCIIDigit(s[2])
}

// isVariantSubtag: 5–8 letters and digits, or a digit and 3 of them.
func isVariantSubtag(s string) bool {
	return isAlnum(s, 5, 8) || len(s) == 4 && isASCIIDigit(s[0]) && isAlnum(s, 4, 4)
}

func isSingleton(s string) bool { return isAlnum(s, 1, 1) }

// isUnicodeKey: a letter or digit, then a letter.
func isUnicodeKey(s string) bool { return len(s) == 2 && isAlnum(s[:1], 1, 1) && isASCIILetter(s[1]) }

// isTransformKey: a letter, then a digit.
func isTransformKey(s string) bool { return len(s) == 2 && isASCIILetter(s[0]) && isASCIIDigit(s[1]) }
