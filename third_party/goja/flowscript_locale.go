package goja

// FlowScript patch 25: Number.prototype.toLocaleString formats by locale
// and options, as Intl.NumberFormat does, for the locales and options
// chatbot scripts use (upstream sends both arguments to toString, so
// (1234.5).toLocaleString("pt-BR") threw "toString() radix argument must be
// between 2 and 36"). The locale data (separators, minimum grouping
// digits, percent sign, currency symbols and their places) is Node 20's
// with ICU 78 for the locales in numberLocales (a language alone takes
// languageDefaults' region); any other locale formats as en-US, which is
// what Node writes for most locales' plain numbers but not for all their
// currency symbols. An option this code does not implement throws a
// RangeError that names it, rather than format differently from Node.
// Date's toLocale*String write the same locales' forms (patch 90:
// datePatternTable). Intl itself stays absent.

import (
	"errors"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dop251/goja/unistring"
)

// currencyForm is how a locale writes a currency: its symbol, the text
// between symbol and number, and whether the symbol comes first.
type currencyForm struct {
	symbol, space string
	before        bool
	// spacing: the space is ICU's currency spacing, not the pattern's, and
	// is only written next to a digit (en-US "BRL 1.00", "BRLNaN").
	spacing bool
}

// numberLocale is one locale's number format.
type numberLocale struct {
	tag            string
	group, decimal string
	// minGrouping2: a four-digit integer part is not grouped (1234, 12 345).
	minGrouping2 bool
	percent      string // after the number
	currencies   map[string]currencyForm
	// minusAfterSymbol: a negative amount is written "US$-1,00" (es-CL).
	minusAfterSymbol bool
	// patternSpace is the space between symbol and number in the locale's
	// currency pattern ("" in en-US's "¤#,##0.00"); set by init.
	patternSpace string
}

// formFor is how the locale writes symbol (a code, a narrow symbol): on
// its currencies' side, with the space of its pattern (pt-BR "R$ 1,00",
// de "1,00 $"); where the pattern has none (en-US "$1.00"), a no-break
// space between a symbol that ends in a letter and a digit ("BRL 1.00"),
// as ICU's currency spacing does.
func (l *numberLocale) formFor(symbol string) currencyForm {
	f := currencyForm{symbol: symbol, space: l.patternSpace, before: l.currencies["EUR"].before}
	if f.space == "" && endsInLetter(symbol) {
		f.space, f.spacing = "\u00a0", true
	}
	return f
}

// symbolOr is symbol, or code where there is none (moreCurrencies).
func symbolOr(symbol, code string) string {
	if symbol == "" {
		return code
	}
	return symbol
}

func endsInLetter(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsLetter(r)
}

// narrowSymbols are currencyDisplay "narrowSymbol"'s symbols, the same in
// every locale here.
var narrowSymbols = map[string]string{
	"BRL": "R$", "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "ARS": "$", "MXN": "$", "CLP": "$", "COP": "$",
}

func init() {
	for _, l := range numberLocales {
		for _, f := range l.currencies {
			if !endsInLetter(f.symbol) {
				l.patternSpace = f.space
				break
			}
		}
		for code, f := range l.currencies {
			f.spacing = f.space != "" && l.patternSpace == ""
			l.currencies[code] = f
		}
	}
}

// numberLocales are keyed by lowercase language-REGION; languageDefaults
// names the locale of a language given alone (or with another region).
var numberLocales = map[string]*numberLocale{
	"en-us": {tag: "en-US", group: ",", decimal: ".", minGrouping2: false, percent: "%", currencies: map[string]currencyForm{
		"BRL": {"R$", "", true, false},
		"USD": {"$", "", true, false},
		"EUR": {"€", "", true, false},
		"GBP": {"£", "", true, false},
		"JPY": {"¥", "", true, false},
		"ARS": {"ARS", "\u00a0", true, false},
		"MXN": {"MX$", "", true, false},
		"CLP": {"CLP", "\u00a0", true, false},
		"COP": {"COP", "\u00a0", true, false},
	}},
	"en-gb": {tag: "en-GB", group: ",", decimal: ".", minGrouping2: false, percent: "%", currencies: map[string]currencyForm{
		"BRL": {"R$", "", true, false},
		"USD": {"US$", "", true, false},
		"EUR": {"€", "", true, false},
		"GBP": {"£", "", true, false},
		"JPY": {"JP¥", "", true, false},
		"ARS": {"ARS", "\u00a0", true, false},
		"MXN": {"MX$", "", true, false},
		"CLP": {"CLP", "\u00a0", true, false},
		"COP": {"COP", "\u00a0", true, false},
	}},
	"pt-br": {tag: "pt-BR", group: ".", decimal: ",", minGrouping2: false, percent: "%", currencies: map[string]currencyForm{
		"BRL": {"R$", "\u00a0", true, false},
		"USD": {"US$", "\u00a0", true, false},
		"EUR": {"€", "\u00a0", true, false},
		"GBP": {"£", "\u00a0", true, false},
		"JPY": {"JP¥", "\u00a0", true, false},
		"ARS": {"ARS", "\u00a0", true, false},
		"MXN": {"MX$", "\u00a0", true, false},
		"CLP": {"CLP", "\u00a0", true, false},
		"COP": {"COP", "\u00a0", true, false},
	}},
	"pt-pt": {tag: "pt-PT", group: "\u00a0", decimal: ",", minGrouping2: true, percent: "%", currencies: map[string]currencyForm{
		"BRL": {"R$", "\u00a0", false, false},
		"USD": {"US$", "\u00a0", false, false},
		"EUR": {"€", "\u00a0", false, false},
		"GBP": {"£", "\u00a0", false, false},
		"JPY": {"JP¥", "\u00a0", false, false},
		"ARS": {"ARS", "\u00a0", false, false},
		"MXN": {"MX$", "\u00a0", false, false},
		"CLP": {"CLP", "\u00a0", false, false},
		"COP": {"COP", "\u00a0", false, false},
	}},
	"es-es": {tag: "es-ES", group: ".", decimal: ",", minGrouping2: true, percent: "\u00a0%", currencies: map[string]currencyForm{
		"BRL": {"BRL", "\u00a0", false, false},
		"USD": {"US$", "\u00a0", false, false},
		"EUR": {"€", "\u00a0", false, false},
		"GBP": {"GBP", "\u00a0", false, false},
		"JPY": {"JPY", "\u00a0", false, false},
		"ARS": {"ARS", "\u00a0", false, false},
		"MXN": {"MXN", "\u00a0", false, false},
		"CLP": {"CLP", "\u00a0", false, false},
		"COP": {"COP", "\u00a0", false, false},
	}},
	"es-mx": {tag: "es-MX", group: ",", decimal: ".", minGrouping2: false, percent: "%", currencies: map[string]currencyForm{
		"BRL": {"BRL", "\u00a0", true, false},
		"USD": {"USD", "\u00a0", true, false},
		"EUR": {"EUR", "\u00a0", true, false},
		"GBP": {"GBP", "\u00a0", true, false},
		"JPY": {"JPY", "\u00a0", true, false},
		"ARS": {"ARS", "\u00a0", true, false},
		"MXN": {"$", "", true, false},
		"CLP": {"CLP", "\u00a0", true, false},
		"COP": {"COP", "\u00a0", true, false},
	}},
	// es-419 (Latin America) is es-MX but for its own peso, which it
	// writes by its code, as Node does.
	"es-419": {tag: "es-419", group: ",", decimal: ".", minGrouping2: false, percent: "%", currencies: map[string]currencyForm{
		"BRL": {"BRL", "\u00a0", true, false},
		"USD": {"USD", "\u00a0", true, false},
		"EUR": {"EUR", "\u00a0", true, false},
		"GBP": {"GBP", "\u00a0", true, false},
		"JPY": {"JPY", "\u00a0", true, false},
		"ARS": {"ARS", "\u00a0", true, false},
		"MXN": {"MXN", "\u00a0", true, false},
		"CLP": {"CLP", "\u00a0", true, false},
		"COP": {"COP", "\u00a0", true, false},
	}},
	"es-ar": {tag: "es-AR", group: ".", decimal: ",", minGrouping2: false, percent: "%", currencies: map[string]currencyForm{
		"BRL": {"BRL", "\u00a0", true, false},
		"USD": {"US$", "\u00a0", true, false},
		"EUR": {"EUR", "\u00a0", true, false},
		"GBP": {"GBP", "\u00a0", true, false},
		"JPY": {"JPY", "\u00a0", true, false},
		"ARS": {"$", "\u00a0", true, false},
		"MXN": {"MXN", "\u00a0", true, false},
		"CLP": {"CLP", "\u00a0", true, false},
		"COP": {"COP", "\u00a0", true, false},
	}},
	"es-co": {tag: "es-CO", group: ".", decimal: ",", minGrouping2: false, percent: "%", currencies: map[string]currencyForm{
		"BRL": {"BRL", "\u00a0", true, false},
		"USD": {"US$", "\u00a0", true, false},
		"EUR": {"EUR", "\u00a0", true, false},
		"GBP": {"GBP", "\u00a0", true, false},
		"JPY": {"JPY", "\u00a0", true, false},
		"ARS": {"ARS", "\u00a0", true, false},
		"MXN": {"MXN", "\u00a0", true, false},
		"CLP": {"CLP", "\u00a0", true, false},
		"COP": {"$", "\u00a0", true, false},
	}},
	"es-cl": {tag: "es-CL", minusAfterSymbol: true, group: ".", decimal: ",", minGrouping2: false, percent: "%", currencies: map[string]currencyForm{
		"BRL": {"BRL", "\u00a0", true, false},
		"USD": {"US$", "", true, false},
		"EUR": {"EUR", "\u00a0", true, false},
		"GBP": {"GBP", "\u00a0", true, false},
		"JPY": {"JPY", "\u00a0", true, false},
		"ARS": {"ARS", "\u00a0", true, false},
		"MXN": {"MXN", "\u00a0", true, false},
		"CLP": {"$", "", true, false},
		"COP": {"COP", "\u00a0", true, false},
	}},
	"de-de": {tag: "de-DE", group: ".", decimal: ",", minGrouping2: false, percent: "\u00a0%", currencies: map[string]currencyForm{
		"BRL": {"R$", "\u00a0", false, false},
		"USD": {"$", "\u00a0", false, false},
		"EUR": {"€", "\u00a0", false, false},
		"GBP": {"£", "\u00a0", false, false},
		"JPY": {"¥", "\u00a0", false, false},
		"ARS": {"ARS", "\u00a0", false, false},
		"MXN": {"MX$", "\u00a0", false, false},
		"CLP": {"CLP", "\u00a0", false, false},
		"COP": {"COP", "\u00a0", false, false},
	}},
	"fr-fr": {tag: "fr-FR", group: "\u202f", decimal: ",", minGrouping2: false, percent: "\u00a0%", currencies: map[string]currencyForm{
		"BRL": {"R$", "\u00a0", false, false},
		"USD": {"$US", "\u00a0", false, false},
		"EUR": {"€", "\u00a0", false, false},
		"GBP": {"£GB", "\u00a0", false, false},
		"JPY": {"JPY", "\u00a0", false, false},
		"ARS": {"$AR", "\u00a0", false, false},
		"MXN": {"$MX", "\u00a0", false, false},
		"CLP": {"$CL", "\u00a0", false, false},
		"COP": {"$CO", "\u00a0", false, false},
	}},
	"it-it": {tag: "it-IT", group: ".", decimal: ",", minGrouping2: true, percent: "%", currencies: map[string]currencyForm{
		"BRL": {"BRL", "\u00a0", false, false},
		"USD": {"USD", "\u00a0", false, false},
		"EUR": {"€", "\u00a0", false, false},
		"GBP": {"£", "\u00a0", false, false},
		"JPY": {"JPY", "\u00a0", false, false},
		"ARS": {"ARS", "\u00a0", false, false},
		"MXN": {"MXN", "\u00a0", false, false},
		"CLP": {"CLP", "\u00a0", false, false},
		"COP": {"COP", "\u00a0", false, false},
	}},
}

var languageDefaults = map[string]string{
	"en": "en-us", "pt": "pt-br", "es": "es-es", "de": "de-de", "fr": "fr-fr", "it": "it-it",
}

// currencyDigits are ISO 4217's minor units where they are not 2 (ICU's
// where they differ: COP, HUF, IDR and IQD).
var currencyDigits = map[string]int{
	"BHD": 3, "BIF": 0, "CLP": 0, "COP": 0, "DJF": 0, "GNF": 0, "HUF": 0, "IDR": 0, "IQD": 0, "ISK": 0, "JOD": 3,
	"JPY": 0, "KMF": 0, "KRW": 0, "KWD": 3, "LYD": 3, "OMR": 3, "PYG": 0, "RWF": 0, "TND": 3,
	"UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
}

var (
	currencySyntax = regexp.MustCompile(`^[A-Za-z]{3}$`)
)

// numberLocaleFor resolves the locales argument: undefined, a tag, or a
// list whose first tag is used.
func (r *Runtime) numberLocaleFor(locales Value) *numberLocale {
	return numberLocaleOf(r.firstLocaleTag(locales))
}

// numberLocaleOf is numberLocaleFor of a tag firstLocaleTag read.
func numberLocaleOf(tag string, given bool) *numberLocale {
	if !given {
		return numberLocales["en-us"]
	}
	parts := strings.Split(strings.ToLower(tag), "-")
	if len(parts) > 1 && (len(parts[1]) == 2 || parts[1] == "419") {
		if l := numberLocales[parts[0]+"-"+parts[1]]; l != nil {
			return l
		}
	}
	if key, ok := languageDefaults[parts[0]]; ok {
		return numberLocales[key]
	}
	return numberLocales["en-us"]
}

// datePatternsOf is the patterns Date's toLocale*String write for tag: its
// own language-REGION's when datePatternTable has them, its language's in
// dateLanguageDefaults, or numberLocaleOf's locale's. en-CA and sv-SE have
// patterns of their own and no numbers (they write numbers as en-US and
// en-US does): toLocaleDateString('en-CA') and toLocaleString('sv-SE') are
// how scripts write an ISO date in local time (FlowScript patch 152: they
// wrote 3/1/2024).
func datePatternsOf(tag string, given bool) *datePatterns {
	if given {
		parts := strings.Split(tag, "-")
		if len(parts) > 1 && len(parts[1]) == 2 {
			if f := datePatternTable[strings.ToLower(parts[0])+"-"+strings.ToUpper(parts[1])]; f != nil {
				return f()
			}
		}
		if key, ok := dateLanguageDefaults[strings.ToLower(parts[0])]; ok {
			return datePatternTable[key]()
		}
	}
	return datePatternTable[numberLocaleOf(tag, given).tag]()
}

// dateLanguageDefaults names the date locale of a language given alone (or
// with another region) that numberLocales does not have.
var dateLanguageDefaults = map[string]string{"sv": "sv-SE"}

// firstLocaleTag reads a locales argument: undefined, a tag, or a list
// whose first tag is used; given is false for undefined and an empty list.
// Every tag of a list is checked, as ECMA-402's CanonicalizeLocaleList
// does: one that is not a locale identifier is V8's RangeError (patch
// 102), an element neither a string nor an object a TypeError.
func (r *Runtime) firstLocaleTag(locales Value) (tag string, given bool) {
	return r.readLocales(locales, true)
}

// readLocales is firstLocaleTag; with all false it reads a list only up to
// its first element, as V8's case mappings do (toLocaleUpperCase(['tr',
// 'en_US']) is 'I' made 'İ', no error).
func (r *Runtime) readLocales(locales Value, all bool) (tag string, given bool) {
	switch {
	case locales == nil || locales == _undefined:
		return "", false
	case isString(locales):
		tag = locales.String()
		if msg := localeTagError(tag); msg != "" {
			panic(r.newError(r.getRangeError(), msg))
		}
		return tag, true
	}
	list := locales.ToObject(r)
	n := toLength(list.self.getStr("length", nil))
	for k := int64(0); k < n; k++ {
		if !list.self.hasPropertyIdx(valueInt(k)) {
			continue
		}
		v := nilSafe(list.self.getIdx(valueInt(k), nil))
		if _, isObj := v.(*Object); !isObj && !isString(v) {
			panic(r.NewTypeError("Language ID should be string or object."))
		}
		t := v.String()
		if msg := localeTagError(t); msg != "" {
			panic(r.newError(r.getRangeError(), msg))
		}
		if !given {
			tag, given = t, true
		}
		if !all {
			break
		}
	}
	return tag, given
}

func isString(v Value) bool {
	_, ok := v.(String)
	return ok
}

// numberFormat is a resolved set of Intl.NumberFormat options.
type numberFormat struct {
	locale           *numberLocale
	style            string // decimal, percent, currency
	currency         currencyForm
	minInt           int
	minFrac, maxFrac int
	grouping         string // "auto", "always", "min2" or "" (none)
}

// option reads options[name], nil when absent or undefined.
func option(options *Object, name unistring.String) Value {
	if options == nil {
		return nil
	}
	v := options.self.getStr(name, nil)
	if v == nil || v == _undefined {
		return nil
	}
	return v
}

// unsupportedNumberOptions are Intl.NumberFormat options this code does not
// implement, with the one value of each it does (or "" for none).
var unsupportedNumberOptions = []struct {
	name    unistring.String
	allowed string
}{
	{"notation", "standard"}, {"signDisplay", "auto"}, {"compactDisplay", ""},
	{"minimumSignificantDigits", ""}, {"maximumSignificantDigits", ""},
	{"roundingMode", "halfExpand"}, {"roundingPriority", "auto"}, {"roundingIncrement", "1"},
	{"trailingZeroDisplay", "auto"}, {"unit", ""}, {"unitDisplay", ""}, {"currencySign", "standard"},
}

// resolveNumberFormat reads locales and options as Intl.NumberFormat does.
func (r *Runtime) resolveNumberFormat(locales, opts Value) *numberFormat {
	f := &numberFormat{locale: r.numberLocaleFor(locales), style: "decimal", minInt: 1, grouping: "auto"}
	var options *Object
	if opts != nil && opts != _undefined {
		options = opts.ToObject(r)
	}
	rangeErr := func(format string, args ...interface{}) {
		panic(r.newErrorf(r.getRangeError(), format, args...))
	}
	for _, o := range unsupportedNumberOptions {
		if v := option(options, o.name); v != nil && v.String() != o.allowed {
			rangeErr("toLocaleString: the option %s (%s) is not supported in this sandbox; supported: style (decimal, percent, currency), "+
				"currency, currencyDisplay (symbol, narrowSymbol, code), minimumIntegerDigits, minimumFractionDigits, maximumFractionDigits, useGrouping",
				o.name, v.String())
		}
	}
	if v := option(options, "style"); v != nil {
		switch f.style = v.String(); f.style {
		case "decimal", "percent", "currency":
		case "unit":
			rangeErr("toLocaleString: style \"unit\" is not supported in this sandbox")
		default:
			rangeErr("Value %s out of range for Intl.NumberFormat options property style", f.style)
		}
	}
	code := ""
	if v := option(options, "currency"); v != nil {
		code = v.String()
		if !currencySyntax.MatchString(code) {
			rangeErr("Invalid currency code : %s", code)
		}
		code = strings.ToUpper(code)
	}
	display := "symbol"
	if v := option(options, "currencyDisplay"); v != nil {
		switch display = v.String(); display {
		case "symbol", "narrowSymbol", "code":
		case "name":
			rangeErr("toLocaleString: currencyDisplay \"name\" is not supported in this sandbox")
		default:
			rangeErr("Value %s out of range for Intl.NumberFormat options property currencyDisplay", display)
		}
	}
	if f.style == "currency" && code == "" {
		panic(r.NewTypeError("Currency code is required with currency style."))
	}
	digitsOption := func(name unistring.String, lo, hi int) (int, bool) {
		v := option(options, name)
		if v == nil {
			return 0, false
		}
		n := v.ToFloat()
		if math.IsNaN(n) || n < float64(lo) || n > float64(hi) {
			rangeErr("%s value is out of range.", name)
		}
		return int(math.Floor(n)), true
	}
	if n, ok := digitsOption("minimumIntegerDigits", 1, 21); ok {
		f.minInt = n
	}
	minFrac, hasMin := digitsOption("minimumFractionDigits", 0, 20) // Node 20 (V8 11): 0 to 20
	maxFrac, hasMax := digitsOption("maximumFractionDigits", 0, 20)
	if v := option(options, "useGrouping"); v != nil {
		// GetBooleanOrStringNumberFormatOption (FlowScript patch 98): true
		// is "always", as in Node, and the strings "true" and "false" keep
		// the default.
		switch s := v.String(); {
		case v == valueTrue:
			f.grouping = "always"
		case !v.ToBoolean():
			f.grouping = ""
		case s == "always" || s == "auto" || s == "min2":
			f.grouping = s
		case s == "true" || s == "false":
		default:
			rangeErr("Value %s out of range for Intl.NumberFormat options property useGrouping", s)
		}
	}

	defMin, defMax := 0, 3
	switch f.style {
	case "percent":
		defMax = 0
	case "currency":
		d, ok := currencyDigits[code]
		if !ok {
			d = 2
		}
		defMin, defMax = d, d
		form, ok := f.locale.currencies[code]
		more := moreCurrencies[strings.ToLower(f.locale.tag)][code] // FlowScript patch 100
		switch {
		case display == "code":
			form = f.locale.formFor(code)
		case !ok && display == "symbol":
			form = f.locale.formFor(symbolOr(more[0], code))
		case display == "narrowSymbol":
			if narrow, ok := narrowSymbols[code]; ok {
				form = f.locale.formFor(narrow)
			} else {
				form = f.locale.formFor(symbolOr(more[1], code))
			}
		}
		f.currency = form
	}
	switch {
	case hasMin && hasMax:
		if minFrac > maxFrac {
			rangeErr("maximumFractionDigits value is out of range.")
		}
	case hasMin:
		maxFrac = max(minFrac, defMax)
	case hasMax:
		minFrac = min(defMin, maxFrac)
	default:
		minFrac, maxFrac = defMin, defMax
	}
	f.minFrac, f.maxFrac = minFrac, maxFrac
	return f
}

// format writes x in f.
func (f *numberFormat) format(x float64) string {
	var b strings.Builder
	negative := math.Signbit(x) && !math.IsNaN(x)
	finite := !math.IsNaN(x) && !math.IsInf(x, 0)
	space := f.currency.space
	if f.currency.spacing && !finite {
		space = "" // ICU's currency spacing is only next to a digit
	}
	switch {
	case f.style == "currency" && f.currency.before && f.locale.minusAfterSymbol:
		b.WriteString(f.currency.symbol)
		if negative {
			b.WriteByte('-')
		} else {
			b.WriteString(space)
		}
	case f.style == "currency" && f.currency.before:
		if negative {
			b.WriteByte('-')
		}
		b.WriteString(f.currency.symbol)
		b.WriteString(space)
	case negative:
		b.WriteByte('-')
	}
	switch {
	case math.IsNaN(x):
		b.WriteString("NaN")
	case math.IsInf(x, 0):
		b.WriteString("∞")
	default:
		f.writeDigits(&b, math.Abs(x))
	}
	switch {
	case f.style == "percent":
		b.WriteString(f.locale.percent)
	case f.style == "currency" && !f.currency.before:
		b.WriteString(space)
		b.WriteString(f.currency.symbol)
	}
	return b.String()
}

// writeDigits writes x (finite, not negative) rounded half away from zero
// at maxFrac decimals, as the shortest decimal that reads back as x is
// (1.005 is "1.01" at two decimals, as in Node, not toFixed's "1.00").
func (f *numberFormat) writeDigits(b *strings.Builder, x float64) {
	e := strconv.FormatFloat(x, 'e', -1, 64) // d.ddddde±x
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	if f.style == "percent" {
		exp += 2
	}
	// digits are d0.d1d2... × 10^exp: the integer part has exp+1 digits.
	point := exp + 1
	if point < 0 {
		digits = strings.Repeat("0", -point) + digits
		point = 0
	}
	if len(digits) < point {
		digits += strings.Repeat("0", point-len(digits))
	}
	intPart, frac := digits[:point], digits[point:]
	if len(frac) > f.maxFrac {
		roundUp := frac[f.maxFrac] >= '5'
		frac = frac[:f.maxFrac]
		if roundUp {
			all := []byte(intPart + frac)
			i := len(all) - 1
			for ; i >= 0 && all[i] == '9'; i-- {
				all[i] = '0'
			}
			if i >= 0 {
				all[i]++
			} else {
				all = append([]byte{'1'}, all...)
			}
			intPart, frac = string(all[:len(all)-len(frac)]), string(all[len(all)-len(frac):])
		}
	}
	frac = strings.TrimRight(frac, "0")
	if len(frac) < f.minFrac {
		frac += strings.Repeat("0", f.minFrac-len(frac))
	}
	intPart = strings.TrimLeft(intPart, "0")
	if len(intPart) < f.minInt {
		intPart = strings.Repeat("0", f.minInt-len(intPart)) + intPart
	}
	f.writeGrouped(b, intPart)
	if frac != "" {
		b.WriteString(f.locale.decimal)
		b.WriteString(frac)
	}
}

// writeGrouped writes the integer part with the locale's group separator.
func (f *numberFormat) writeGrouped(b *strings.Builder, intPart string) {
	minDigits := 4 // the smallest grouped integer part
	switch {
	case f.grouping == "":
		minDigits = len(intPart) + 1
	case f.grouping == "min2", f.grouping == "auto" && f.locale.minGrouping2:
		minDigits = 5
	}
	if len(intPart) < minDigits {
		b.WriteString(intPart)
		return
	}
	first := len(intPart) % 3
	if first == 0 {
		first = 3
	}
	b.WriteString(intPart[:first])
	for i := first; i < len(intPart); i += 3 {
		b.WriteString(f.locale.group)
		b.WriteString(intPart[i : i+3])
	}
}

func (r *Runtime) numberproto_toLocaleString(call FunctionCall) Value {
	x := r.toNumber(call.This).ToFloat()
	f := r.resolveNumberFormat(call.Argument(0), call.Argument(1))
	return newStringValue(f.format(x))
}

// FlowScript patch 90: Date's toLocaleDateString, toLocaleTimeString and
// toLocaleString take Intl.DateTimeFormat's options weekday, year, month
// (a number or a name), day, hour, minute, second, hour12, hourCycle,
// timeZone, dateStyle and timeStyle (medium or short), and write what Node
// writes for the locales of numberLocales: the patterns (datePatternTable)
// are read from Node's ICU by testdata/flowscript/date_patterns_gen.js.
// Given an option they do not format (era, dayPeriod, timeZoneName,
// fractionalSecondDigits, a long or full timeStyle, which names the zone,
// a calendar but gregory, a numberingSystem but latn),
// they write the fields upstream wrote, 12/25/2020, 15:14:59, in the
// timeZone's zone when one is given (before this patch, any option but
// timeZone alone was written so, and dropped the zone too).

// datePatterns is how a locale writes a date. Its patterns are keyed as
// date_patterns_gen.js says: date by the widths of weekday, year, month and
// day; time by those of hour, minute and second, then hour12 or the
// hourCycle; styles by dateStyle and timeStyle. A date with a time is the
// date's pattern, the join (joins[date|time], else joins[date], else join)
// and the time's, or wholes[date|time] where ICU writes the pair otherwise.
// In a pattern, y is the year (yy its last two digits), M the month, Nn the
// month's name from months[n], d the day, En the weekday's name from
// weekdays[n], H the hour 0-23, h 1-12, K 0-11, k 1-24, m the minute, s
// the second (a doubled letter: two digits), a the day period (periods:
// AM, PM), and quoted text is written as it is.
type datePatterns struct {
	periods            [2]string
	join               string
	joins, wholes      map[string]string
	months             [][12]string
	weekdays           [][7]string
	date, time, styles map[string]string
}

// dateOptions are the options of a toLocale*String call: each field's
// width ('-' absent; 'n' numeric, '2' 2-digit; 'L' long, 'S' short, 'N'
// narrow), the styles ('-', or dateStyles'), hour12 ('-', 't', 'f'),
// hourCycle and the zone.
type dateOptions struct {
	weekday, year, month, day, hour, minute, second byte
	dateStyle, timeStyle, hour12                    byte
	hourCycle                                       string
	zone                                            *time.Location
}

// localeDateString is Date's toLocale*String (which is "date", "time" or
// "both") of t by locales and options.
func (r *Runtime) localeDateString(t time.Time, locales, options Value, which string) string {
	o, ok := r.readDateOptions(options, which)
	if o.zone != nil {
		t = t.In(o.zone)
	}
	if !ok {
		switch which {
		case "date":
			return t.Format(dateLayout_en_GB)
		case "time":
			return t.Format(timeLayout_en_GB)
		}
		return t.Format(datetimeLayout_en_GB)
	}
	tag, given := r.firstLocaleTag(locales)
	l := datePatternsOf(tag, given)
	// The locale's -u-hc- (patch 115; a value V8 does not know is ignored)
	// is the cycle when no option names one, and the cycle hour12 is read
	// against, as V8 reads it: h11 or h23 make hour12 h11 or h23, h12 or
	// h24 make it h12 or h24.
	ext := hourCycleLetter[unicodeKeyword(tag, "hc")]
	cycle := ""
	switch {
	case o.hour12 != '-' && ext != 0: // hour12 rules hourCycle out
		cycle = string(hour12Letter[[2]byte{ext, o.hour12}])
	case o.hour12 != '-':
		cycle = string(o.hour12)
	case o.hourCycle != "":
		cycle = string(hourCycleLetter[o.hourCycle])
	case ext != 0:
		cycle = string(ext)
	}
	var b strings.Builder
	if o.dateStyle != '-' || o.timeStyle != '-' {
		if o.timeStyle == '-' {
			cycle = ""
		}
		styles := "s" + string([]byte{o.dateStyle, o.timeStyle})
		pattern := l.styles[styles+cycle]
		if ext != 0 && cycle != "" {
			// ICU writes a style's 12-hour clock of a -u-hc- locale with the
			// hour in one digit, where the hourCycle option keeps two; hour12
			// keeps the width of the -u-hc- clock when that is not of the
			// locale's kind (12 or 24 hours), and is the option otherwise.
			own := l.styles[styles+string(ext)]
			if twelveHour(ext) {
				own = strings.NewReplacer("hh", "h", "KK", "K").Replace(own)
			}
			if o.hour12 == '-' || twelveHour(ext) != twelveHour(hourLetter(l.styles[styles])) {
				pattern = withHourWidth(pattern, hourWidth(own))
			}
		}
		l.format(&b, pattern, t)
		return b.String()
	}
	date, tm := string([]byte{o.weekday, o.year, o.month, o.day}), string([]byte{o.hour, o.minute, o.second})
	if o.hour != '-' {
		tm += cycle
	}
	switch {
	case tm == "---":
		l.format(&b, l.date[date], t)
		return b.String()
	case date == "----":
		l.format(&b, l.time[tm], t)
		return b.String()
	}
	pair := date + "|" + tm
	if whole, ok := l.wholes[pair]; ok {
		l.format(&b, whole, t)
		return b.String()
	}
	join, ok := l.joins[pair]
	if !ok {
		if join, ok = l.joins[date]; !ok {
			join = l.join
		}
	}
	l.format(&b, l.date[date], t)
	b.WriteString(join)
	l.format(&b, l.time[tm], t)
	return b.String()
}

// readDateOptions reads the options of a toLocale*String call and adds
// the fields it writes by default, as ToDateTimeOptions does: ok is false
// when an option this code does not format is given (the zone is read
// still). A value out of range, a zone that does not exist and a style
// given with fields, or to the method that does not write it, are Node's
// errors.
func (r *Runtime) readDateOptions(options Value, which string) (o dateOptions, ok bool) {
	o = dateOptions{weekday: '-', year: '-', month: '-', day: '-', hour: '-', minute: '-', second: '-',
		dateStyle: '-', timeStyle: '-', hour12: '-'}
	ok = true
	if options == nil || options == _undefined {
		return o.withDefaults(which), true
	}
	obj := options.ToObject(r)
	get := func(name string) Value {
		if v := obj.self.getStr(unistring.String(name), nil); v != nil && v != _undefined {
			return v
		}
		return nil
	}
	outOfRange := func(name, value string) {
		panic(r.newErrorf(r.getRangeError(), "Value %s out of range for Date.prototype.%s options property %s", value, dateMethods[which], name))
	}
	if v := get("hour12"); v != nil {
		o.hour12 = map[bool]byte{true: 't', false: 'f'}[v.ToBoolean()]
	}
	if v := get("hourCycle"); v != nil {
		if o.hourCycle = v.String(); hourCycleLetter[o.hourCycle] == 0 {
			outOfRange("hourCycle", o.hourCycle)
		}
	}
	if v := get("timeZone"); v != nil {
		o.zone = r.dateZone(v.String())
	}
	var given string // the first field given, for the error of a style given with fields
	for _, f := range []struct {
		name   string
		dst    *byte
		widths string
	}{{"weekday", &o.weekday, "LSN"}, {"era", nil, ""}, {"year", &o.year, "n2"}, {"month", &o.month, "n2LSN"},
		{"day", &o.day, "n2"}, {"dayPeriod", nil, ""}, {"hour", &o.hour, "n2"}, {"minute", &o.minute, "n2"},
		{"second", &o.second, "n2"}, {"fractionalSecondDigits", nil, ""}, {"timeZoneName", nil, ""}} {
		v := get(f.name)
		if v == nil {
			continue
		}
		if given == "" {
			given = f.name
		}
		if f.dst == nil {
			ok = false // not formatted here
			continue
		}
		w := v.String()
		c := dateWidths[w]
		if c == 0 || !strings.ContainsRune(f.widths, rune(c)) {
			outOfRange(f.name, w)
		}
		*f.dst = c
	}
	for _, f := range []struct {
		name string
		dst  *byte
	}{{"dateStyle", &o.dateStyle}, {"timeStyle", &o.timeStyle}} {
		v := get(f.name)
		if v == nil {
			continue
		}
		w := v.String()
		if *f.dst = dateStyles[w]; *f.dst == 0 {
			outOfRange(f.name, w)
		}
	}
	for name, plain := range map[string]string{"calendar": "gregory", "numberingSystem": "latn"} {
		if v := get(name); v != nil && v.String() != plain {
			ok = false // another calendar or digits: not written here
		}
	}
	if o.dateStyle != '-' || o.timeStyle != '-' {
		style := "dateStyle"
		if o.dateStyle == '-' {
			style = "timeStyle"
		}
		switch {
		case which == "date" && o.timeStyle != '-':
			panic(r.NewTypeError("Invalid option : timeStyle"))
		case which == "time" && o.dateStyle != '-':
			panic(r.NewTypeError("Invalid option : dateStyle"))
		case given != "":
			panic(r.NewTypeError("Can't set option %s when %s is used", given, style))
		case o.timeStyle == 'f' || o.timeStyle == 'L':
			ok = false // it names the zone
		}
		return o, ok
	}
	return o.withDefaults(which), ok
}

// withDefaults is o with the fields a method writes when none of its kind
// is given (ToDateTimeOptions): the date's for toLocaleDateString, the
// time's for toLocaleTimeString, both for toLocaleString when neither is.
func (o dateOptions) withDefaults(which string) dateOptions {
	date := o.weekday != '-' || o.year != '-' || o.month != '-' || o.day != '-'
	tm := o.hour != '-' || o.minute != '-' || o.second != '-'
	if which == "date" && !date || which == "both" && !date && !tm {
		o.year, o.month, o.day = 'n', 'n', 'n'
	}
	if which == "time" && !tm || which == "both" && !date && !tm {
		o.hour, o.minute, o.second = 'n', 'n', 'n'
	}
	return o
}

// dateWidths code the widths of the fields' options.
var dateWidths = map[string]byte{"numeric": 'n', "2-digit": '2', "long": 'L', "short": 'S', "narrow": 'N'}

// dateStyles code the values of dateStyle and timeStyle.
var dateStyles = map[string]byte{"full": 'f', "long": 'L', "medium": 'm', "short": 'S'}

// dateMethods name the method of each which, for Node's errors.
var dateMethods = map[string]string{"date": "toLocaleDateString", "time": "toLocaleTimeString", "both": "toLocaleString"}

// unicodeKeyword is the value of key in the -u- extension of locale tag
// (lower case), or "": unicodeKeyword("en-US-u-ca-gregory-hc-h23", "hc")
// is "h23".
func unicodeKeyword(tag, key string) string {
	parts := strings.Split(strings.ToLower(tag), "-")
	inU := false
	for i, p := range parts {
		switch {
		case len(p) == 1: // a singleton starts an extension
			inU = p == "u"
		case inU && p == key:
			if i+1 < len(parts) && len(parts[i+1]) > 2 {
				return parts[i+1]
			}
			return ""
		}
	}
	return ""
}

// twelveHour tells whether an hour's letter is of a 12-hour clock.
func twelveHour(letter byte) bool { return letter == 'h' || letter == 'K' }

// hourField is where the hour is in a date pattern, outside quoted text,
// and in how many letters (n 0: none).
func hourField(pattern string) (i, n int) {
	quoted := false
	for i = 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\'':
			quoted = !quoted
		case !quoted && (c == 'h' || c == 'H' || c == 'k' || c == 'K'):
			for n = 1; i+n < len(pattern) && pattern[i+n] == c; n++ {
			}
			return i, n
		}
	}
	return 0, 0
}

// hourLetter is the letter of the hour in a date pattern, or 0.
func hourLetter(pattern string) byte {
	if i, n := hourField(pattern); n > 0 {
		return pattern[i]
	}
	return 0
}

// hourWidth is how many letters write the hour in a date pattern (0:
// none).
func hourWidth(pattern string) int {
	_, n := hourField(pattern)
	return n
}

// withHourWidth writes the hour of pattern in width letters (1 or 2).
func withHourWidth(pattern string, width int) string {
	i, n := hourField(pattern)
	if n == 0 || width == 0 {
		return pattern
	}
	return pattern[:i] + strings.Repeat(pattern[i:i+1], width) + pattern[i+n:]
}

// hour12Letter is the hour's letter for hour12 ('t' true, 'f' false) read
// against a -u-hc- cycle's letter.
var hour12Letter = map[[2]byte]byte{{'K', 't'}: 'K', {'K', 'f'}: 'H', {'H', 't'}: 'K', {'H', 'f'}: 'H',
	{'h', 't'}: 'h', {'h', 'f'}: 'k', {'k', 't'}: 'h', {'k', 'f'}: 'k'}

// hourCycleLetter is the hour's letter in a pattern of each hourCycle.
var hourCycleLetter = map[string]byte{"h11": 'K', "h12": 'h', "h23": 'H', "h24": 'k'}

// format writes t in pattern to b.
func (l *datePatterns) format(b *strings.Builder, pattern string, t time.Time) {
	for i := 0; i < len(pattern); {
		c := pattern[i]
		if c == '\'' {
			j := i + 1
			for j < len(pattern) {
				if pattern[j] == '\'' {
					if j+1 < len(pattern) && pattern[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(pattern[j])
				j++
			}
			i = j + 1
			continue
		}
		if c == 'N' || c == 'E' { // a name, from the list its digit picks
			list := int(pattern[i+1] - '0')
			if c == 'N' {
				b.WriteString(l.months[list][t.Month()-1])
			} else {
				b.WriteString(l.weekdays[list][t.Weekday()])
			}
			i += 2
			continue
		}
		n := 1
		for i+n < len(pattern) && pattern[i+n] == c {
			n++
		}
		i += n
		num := func(v int) {
			if n == 2 && v < 10 {
				b.WriteByte('0')
			}
			b.WriteString(strconv.Itoa(v))
		}
		switch c {
		case 'y':
			year := t.Year()
			if year <= 0 {
				year = 1 - year // the era's year, as Node writes it: 0 is 1 (BC), -1 is 2
			}
			if n == 2 {
				num(year % 100)
			} else {
				b.WriteString(strconv.Itoa(year))
			}
		case 'M':
			num(int(t.Month()))
		case 'd':
			num(t.Day())
		case 'H':
			num(t.Hour())
		case 'h':
			num((t.Hour()+11)%12 + 1)
		case 'K':
			num(t.Hour() % 12)
		case 'k':
			num((t.Hour()+23)%24 + 1)
		case 'm':
			num(t.Minute())
		case 's':
			num(t.Second())
		case 'a':
			b.WriteString(l.periods[t.Hour()/12])
		}
	}
}

// dateZone is the zone of a timeZone option: an IANA name in any case, as
// V8 reads it; one that does not exist is Node's RangeError.
func (r *Runtime) dateZone(name string) *time.Location {
	if strings.EqualFold(name, "UTC") || strings.EqualFold(name, "Etc/UTC") || strings.EqualFold(name, "GMT") {
		return time.UTC
	}
	zone, err := loadZone(name)
	if err != nil {
		if canonical, ok := zoneNamed(name); ok {
			zone, err = loadZone(canonical)
		}
	}
	if err != nil {
		panic(r.newErrorf(r.getRangeError(), "Invalid time zone specified: %s", name))
	}
	return zone
}

// zoneNamed is the IANA name that name spells in another case.
func zoneNamed(name string) (string, bool) {
	ianaZonesOnce.Do(func() {
		ianaZones = make(map[string]string, 600)
		for _, z := range strings.Fields(ianaZoneNames) {
			ianaZones[strings.ToLower(z)] = z
		}
	})
	z, ok := ianaZones[strings.ToLower(name)]
	return z, ok
}

var (
	ianaZonesOnce sync.Once
	ianaZones     map[string]string // lower case → IANA name
)

var zones sync.Map // IANA name → *time.Location

// loadZone loads an IANA zone once per process. time.LoadLocation refuses
// paths; "" and "Local" are its names for UTC and the process's zone, not
// IANA zones.
func loadZone(name string) (*time.Location, error) {
	if z, ok := zones.Load(name); ok {
		return z.(*time.Location), nil
	}
	if name == "" || name == "Local" {
		return nil, errBadZone
	}
	z, err := time.LoadLocation(name)
	if err != nil {
		return nil, errBadZone
	}
	zones.Store(name, z)
	return z, nil
}

var errBadZone = errors.New("unknown time zone")

// bigintproto_toLocaleString formats a BigInt by locale and options as
// Number.prototype.toLocaleString does a number (FlowScript patch 40;
// upstream read the locale as toString's radix and threw a RangeError). A
// BigInt a float64 holds exactly goes through the number's formatter; a
// larger one in the decimal style is grouped digit by digit, as ICU does.
func (r *Runtime) bigintproto_toLocaleString(call FunctionCall) Value {
	x := (*big.Int)(r.thisBigIntValue(call.This).(*valueBigInt))
	f := r.resolveNumberFormat(call.Argument(0), call.Argument(1))
	if x.IsInt64() && x.Int64() <= 1<<53 && x.Int64() >= -(1<<53) || f.style != "decimal" {
		v, _ := new(big.Float).SetInt(x).Float64()
		return newStringValue(f.format(v))
	}
	var b strings.Builder
	if x.Sign() < 0 {
		b.WriteByte('-')
	}
	f.writeGrouped(&b, new(big.Int).Abs(x).Text(10))
	if f.minFrac > 0 {
		b.WriteString(f.locale.decimal)
		b.WriteString(strings.Repeat("0", f.minFrac))
	}
	return newStringValue(b.String())
}
