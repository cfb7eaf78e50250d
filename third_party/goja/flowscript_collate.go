package goja

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/dop251/goja/unistring"
)

// FlowScript patch 35: String.prototype.localeCompare(that, locales,
// options) compares by the locale's collation and the options numeric and
// sensitivity, as Intl.Collator does; upstream ignored both arguments
// (["Item 10", "Item 2"] sorted with numeric: true stayed in that order,
// and "a" equalled "A" under no sensitivity). An option this code does not
// implement is a RangeError that says so, not a silent difference.

// maxCollators bounds the collators a runtime keeps (one per locale and
// options a script uses): past it they are made per call.
const maxCollators = 16

// localeCompare compares this and that (both in NFD) as
// this.localeCompare(that, locales, options).
func (r *Runtime) localeCompare(this, that string, locales, options Value) int {
	c, base := r.localeCollator(locales, options)
	if base == nil {
		return c.CompareString(this, that)
	}
	// Sensitivity "case": equal letters (accents ignored) are then told
	// apart by their case alone. A collator that ignores accents still
	// weighs a combining mark at the third level, so the marks are taken
	// out before that comparison.
	if n := base.CompareString(this, that); n != 0 {
		return n
	}
	return c.CompareString(withoutMarks(this), withoutMarks(that))
}

// withoutMarks is s (in NFD) without its combining marks.
func withoutMarks(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, s)
}

// localeCollator is the collator for localeCompare's locales and options
// and, when the sensitivity is "case", the locale's collator of base
// letters (see localeCompare).
func (r *Runtime) localeCollator(locales, options Value) (c, base *collate.Collator) {
	noOptions := options == nil || options == _undefined
	tag, given := r.firstLocaleTag(locales)
	if !given && noOptions {
		return r.collator(), nil
	}
	var opts *Object
	if !noOptions {
		opts = options.ToObject(r)
	}
	choice := func(name unistring.String, def string, allowed ...string) string {
		v := option(opts, name)
		if v == nil {
			return def
		}
		s := v.String()
		for _, a := range allowed {
			if s == a {
				return s
			}
		}
		panic(r.newError(r.getRangeError(), fmt.Sprintf("Value %s out of range for String.prototype.localeCompare options property %s", s, name)))
	}
	numeric := false
	if v := option(opts, "numeric"); v != nil {
		numeric = v.ToBoolean()
	}
	sensitivity := choice("sensitivity", "variant", "base", "accent", "case", "variant")
	choice("usage", "sort", "sort", "search") // the order is the same for both here
	if v := option(opts, "ignorePunctuation"); v != nil && v.ToBoolean() {
		panic(r.newError(r.getRangeError(), "localeCompare: the option ignorePunctuation is not supported in this sandbox; supported: numeric, sensitivity"))
	}
	if c := choice("caseFirst", "false", "upper", "lower", "false"); c != "false" {
		panic(r.newError(r.getRangeError(), fmt.Sprintf("localeCompare: the option caseFirst (%s) is not supported in this sandbox; supported: numeric, sensitivity", c)))
	}

	lang, err := language.Parse(tag)
	if !given || err != nil {
		lang = language.Und
	}
	if sensitivity == "case" {
		return r.collatorOf(tag, lang, numeric, "variant"), r.collatorOf(tag, lang, numeric, "base")
	}
	return r.collatorOf(tag, lang, numeric, sensitivity), nil
}

// collatorOf is the collator of lang (named tag) with the options, kept for
// the next call while the runtime holds fewer than maxCollators.
func (r *Runtime) collatorOf(tag string, lang language.Tag, numeric bool, sensitivity string) *collate.Collator {
	key := tag + "|" + strconv.FormatBool(numeric) + "|" + sensitivity
	if c := r.collators[key]; c != nil {
		return c
	}
	var o []collate.Option
	if numeric {
		o = append(o, collate.Numeric)
	}
	switch sensitivity {
	case "base": // a = á = A
		o = append(o, collate.IgnoreCase, collate.IgnoreDiacritics)
	case "accent": // a = A, a ≠ á
		o = append(o, collate.IgnoreCase)
	}
	c := collate.New(lang, o...)
	if len(r.collators) < maxCollators {
		if r.collators == nil {
			r.collators = map[string]*collate.Collator{}
		}
		r.collators[key] = c
	}
	return c
}
