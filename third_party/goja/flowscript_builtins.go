package goja

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// FlowScript patch 41: built-ins Node 20 has and upstream goja lacked.

// dateproto_getYear is Annex B's Date.prototype.getYear: the year less
// 1900, in the runtime's zone.
func (r *Runtime) dateproto_getYear(call FunctionCall) Value {
	if d, ok := r.toObject(call.This).self.(*dateObject); ok {
		if d.isSet() {
			return intToValue(int64(d.time().Year()) - 1900)
		}
		return _NaN
	}
	panic(r.NewTypeError("Method Date.prototype.getYear is called on incompatible receiver"))
}

// loneSurrogate returns the index of s's first lone surrogate, -1 when it
// has none.
func loneSurrogate(s String) int {
	if _, ok := s.(asciiString); ok {
		return -1
	}
	for i := 0; i < s.Length(); i++ {
		if isUTF16Pair(s, i) {
			i++
		} else if c := s.CharAt(i); isUTF16FirstSurrogate(c) || isUTF16SecondSurrogate(c) {
			return i
		}
	}
	return -1
}

// stringproto_isWellFormed is ES2024's String.prototype.isWellFormed: the
// string has no lone surrogate.
func (r *Runtime) stringproto_isWellFormed(call FunctionCall) Value {
	r.checkObjectCoercible(call.This)
	return r.toBoolean(loneSurrogate(call.This.toString()) < 0)
}

// stringproto_toWellFormed is ES2024's String.prototype.toWellFormed: the
// string with each lone surrogate replaced by U+FFFD, which is what
// utf16.Decode makes of one.
func (r *Runtime) stringproto_toWellFormed(call FunctionCall) Value {
	r.checkObjectCoercible(call.This)
	s := call.This.toString()
	if loneSurrogate(s) < 0 {
		return s
	}
	units := make([]uint16, s.Length())
	for i := range units {
		units[i] = s.CharAt(i)
	}
	return newStringValue(string(utf16.Decode(units)))
}

// bigIntToNumber is Number(b): the nearest double, ties to even, and
// ±Infinity past the largest (FlowScript patch 45; upstream took b's low
// 64 bits as a signed integer, so Number(2n ** 64n) was 0).
func bigIntToNumber(b *big.Int) Value {
	if b.IsInt64() {
		if i := b.Int64(); i >= -maxInt && i <= maxInt {
			return intToValue(i)
		}
	}
	f, _ := new(big.Float).SetInt(b).Float64()
	return floatToValue(f)
}

// fdlibm's e_log.c: 2**54, to scale a subnormal up, and the coefficients
// of its polynomial for log(1 + f) (Lg1–Lg7), which mathLog and mathLog2
// share.
const (
	two54 = 1.80143985094819840000e+16 // 43500000 00000000
	lg1   = 6.666666666666735130e-01   // 3FE55555 55555593
	lg2   = 3.999999999940941908e-01   // 3FD99999 9997FA04
	lg3   = 2.857142874366239149e-01   // 3FD24924 94229359
	lg4   = 2.222219843214978396e-01   // 3FCC71C5 1D8E78AF
	lg5   = 1.818357216161805012e-01   // 3FC74664 96CB03DE
	lg6   = 1.531383769920937332e-01   // 3FC39A09 D078C69F
	lg7   = 1.479819860511658591e-01   // 3FC2F112 DF3E5244
)

// mathLog is Math.log as V8 computes it: fdlibm's e_log.c (FlowScript
// patch 108). Go's math.Log (assembly on amd64) differed from it in the
// last digit for about one input in four hundred (Math.log(0.01) was
// -4.605170185988092, V8 -4.605170185988091), and was wrong below the
// smallest normal double (patch 45).
func mathLog(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01 // 3fe62e42 fee00000
		ln2Lo = 1.90821492927058770002e-10 // 3dea39ef 35793c76
	)
	bits := math.Float64bits(x)
	hx := int32(bits >> 32)
	lx := uint32(bits)
	k := int32(0)
	if hx < 0x00100000 { // x < 2**-1022
		switch {
		case hx&0x7fffffff|int32(lx) == 0:
			return math.Inf(-1)
		case hx < 0:
			return math.NaN()
		}
		k -= 54
		x *= two54 // a subnormal: scale it up
		bits = math.Float64bits(x)
		hx = int32(bits >> 32)
	}
	if hx >= 0x7ff00000 {
		return x + x
	}
	k += hx>>20 - 1023
	hx &= 0x000fffff
	i := (hx + 0x95f64) & 0x100000
	x = math.Float64frombits(uint64(uint32(hx|(i^0x3ff00000)))<<32 | bits&0xffffffff) // x or x/2, normalized
	k += i >> 20
	f := x - 1.0
	if 0x000fffff&(2+hx) < 3 { // |f| < 2**-20
		if f == 0 {
			if k == 0 {
				return 0
			}
			dk := float64(k)
			return dk*ln2Hi + dk*ln2Lo
		}
		r := f * f * (0.5 - 0.33333333333333333*f)
		if k == 0 {
			return f - r
		}
		dk := float64(k)
		return dk*ln2Hi - ((r - dk*ln2Lo) - f)
	}
	s := f / (2.0 + f)
	dk := float64(k)
	z := s * s
	i = hx - 0x6147a
	w := z * z
	j := 0x6b851 - hx
	t1 := w * (lg2 + w*(lg4+w*lg6))
	t2 := z * (lg1 + w*(lg3+w*(lg5+w*lg7)))
	i |= j
	r := t2 + t1
	if i > 0 {
		hfsq := 0.5 * f * f
		if k == 0 {
			return f - (hfsq - s*(hfsq+r))
		}
		return dk*ln2Hi - ((hfsq - (s*(hfsq+r) + dk*ln2Lo)) - f)
	}
	if k == 0 {
		return f - s*(f-r)
	}
	return dk*ln2Hi - ((s*(f-r) - dk*ln2Lo) - f)
}

// mathLog10 is Math.log10 as V8 computes it (fdlibm's e_log10.c): the
// exponent's share and the mantissa's are added last, so a power of ten
// gives its exponent exactly. Go's math.Log10 multiplies log2(x) by a
// rounded constant: Math.log10(1e15) was 14.999999999999998 and a digit
// count by Math.floor(Math.log10(n)) + 1 came out one short (patch 45).
func mathLog10(x float64) float64 {
	const (
		ivln10   = 4.34294481903251816668e-01
		log102hi = 3.01029995663611771306e-01
		log102lo = 3.69423907715893078616e-13
	)
	switch {
	case math.IsNaN(x) || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	k := 0
	if x < 0x1p-1022 {
		k -= 54
		x *= 0x1p54
	}
	bits := math.Float64bits(x)
	hx := int32(bits >> 32)
	k += int(hx>>20) - 1023
	i := 0
	if k < 0 {
		i = 1
	}
	hx = hx&0x000fffff | int32(0x3ff-i)<<20
	y := float64(k + i)
	x = math.Float64frombits(uint64(uint32(hx))<<32 | bits&0xffffffff)
	z := y*log102lo + ivln10*mathLog(x)
	return z + y*log102hi
}

// mathLog2 is Math.log2 as V8 computes it (FreeBSD's e_log2.c, as V8's
// ieee754::log2): the mantissa's logarithm is split in a high and a low
// part and the exponent added last (FlowScript patch 137). Go's math.Log2
// takes the logarithm of the mantissa in [0.5, 1) and adds the exponent,
// which cancels just above 1: Math.log2(1 + 2**-52) was
// 3.3306690738754696e-16, 4 % over V8's 3.203426503814917e-16.
func mathLog2(x float64) float64 {
	const (
		ivln2hi = 1.44269504072144627571e+00 // 3ff71547 65200000
		ivln2lo = 1.67517131648865118353e-10 // 3de705fc 2eefa200
	)
	bits := math.Float64bits(x)
	hx := int32(bits >> 32)
	lx := uint32(bits)
	k := int32(0)
	if hx < 0x00100000 { // x < 2**-1022
		switch {
		case hx&0x7fffffff|int32(lx) == 0:
			return math.Inf(-1)
		case hx < 0:
			return math.NaN()
		}
		k -= 54
		x *= two54 // a subnormal: scale it up
		bits = math.Float64bits(x)
		hx = int32(bits >> 32)
	}
	if hx >= 0x7ff00000 {
		return x + x
	}
	if hx == 0x3ff00000 && lx == 0 {
		return 0
	}
	k += hx>>20 - 1023
	hx &= 0x000fffff
	i := (hx + 0x95f64) & 0x100000
	x = math.Float64frombits(uint64(uint32(hx|(i^0x3ff00000)))<<32 | bits&0xffffffff) // x or x/2, normalized
	k += i >> 20
	y := float64(k)
	f := x - 1.0
	hfsq := 0.5 * f * f
	// k_log1p(f): log(1 + f) - f + f*f/2
	s := f / (2.0 + f)
	z := s * s
	w := z * z
	r := s * (hfsq + (z*(lg1+w*(lg3+w*(lg5+w*lg7))) + w*(lg2+w*(lg4+w*lg6))))

	hi := math.Float64frombits(math.Float64bits(f-hfsq) &^ 0xffffffff) // its low word cleared
	lo := (f - hi) - hfsq + r
	valHi := hi * ivln2hi
	valLo := (lo+hi)*ivln2lo + lo*ivln2hi
	sum := y + valHi
	valLo += (y - sum) + valHi
	return valLo + sum
}

// stringproto_toLocaleCase is String.prototype.toLocaleUpperCase (upper)
// and toLocaleLowerCase: the locales whose case mapping differs from the
// default (Turkish and Azeri dotted and dotless i, Lithuanian dots) map
// by their rules, as V8 does; any other maps as toUpperCase and
// toLowerCase (FlowScript patch 47; upstream ignored the locale).
func (r *Runtime) stringproto_toLocaleCase(upper bool) func(FunctionCall) Value {
	return func(call FunctionCall) Value {
		r.checkObjectCoercible(call.This)
		s := call.This.toString()
		tag, special := r.caseLocale(call.Argument(0))
		switch {
		case special:
			caser := cases.Lower(tag)
			if upper {
				caser = cases.Upper(tag)
			}
			conv := func(x string) String { return newStringValue(caser.String(x)) }
			if _, u := devirtualizeString(s); u != nil && hasLoneSurrogate(u) { // FlowScript patch 82
				return mapWellFormed(u, conv)
			}
			return conv(s.String())
		case upper:
			return s.toUpper()
		}
		return s.toLower()
	}
}

// caseLocale reads the requested locale (a tag, or the first of a list,
// checked as firstLocaleTag checks it; the rest of the list is not read,
// as in V8) and says whether its case mapping is special.
func (r *Runtime) caseLocale(arg Value) (language.Tag, bool) {
	s, given := r.readLocales(arg, false)
	if !given {
		return language.Und, false
	}
	tag, err := language.Parse(s)
	if err != nil { // well formed, yet not a tag x/text reads (an unusual extension): the language alone
		base, _ := language.Parse(strings.SplitN(s, "-", 2)[0])
		tag = base
	}
	base, _ := tag.Base()
	switch base.String() {
	case "tr", "az", "lt":
		return tag, true
	}
	return tag, false
}

// error_captureStackTrace is V8's Error.captureStackTrace(target,
// constructorOpt): target gets an own, non-enumerable stack, its error
// string (name: message) and the calls that led here. Node code calls it
// in its Error subclasses, where it threw TypeError: Error.captureStackTrace
// is not a function and replaced the author's error (FlowScript patch 56).
// constructorOpt, which hides the frames above a function, is accepted and
// not applied.
func (r *Runtime) error_captureStackTrace(call FunctionCall) Value {
	target, ok := call.Argument(0).(*Object)
	if !ok {
		panic(r.NewTypeError("invalid_argument"))
	}
	var b StringBuilder
	if val := writeErrorString(&b, target); val != nil {
		b.WriteString(val)
	}
	for _, frame := range r.CaptureCallStack(0, nil) {
		b.WriteRune('\n')
		b.writeASCII("\tat ")
		frame.WriteToValueBuilder(&b)
	}
	target.self.defineOwnPropertyStr(propNameStack, PropertyDescriptor{
		Value: b.String(), Writable: FLAG_TRUE, Enumerable: FLAG_FALSE, Configurable: FLAG_TRUE,
	}, true)
	return _undefined
}

// FlowScript patch 61: -0 is 0 where the standard compares numbers with
// SameValueZero (includes) or ===, (indexOf, lastIndexOf): upstream's
// includes missed a -0 element, and a float typed array's raw comparison
// any -0.

// isZero reports whether v is the number +0 or -0.
func isZero(v Value) bool {
	switch n := v.(type) {
	case valueInt:
		return n == 0
	case valueFloat:
		return n == 0
	}
	return false
}

// sameRaw reports whether two raw elements of a are equal numbers: their
// bits, but for a float array's zeros.
func sameRaw(a typedArray, x, y uint64) bool {
	if x == y {
		return true
	}
	switch a.(type) {
	case *float64Array:
		return x&^(1<<63) == 0 && y&^(1<<63) == 0
	case *float32Array:
		return x&^(1<<31) == 0 && y&^(1<<31) == 0
	}
	return false
}

// modInt64 is the integer part of f modulo 2^64, as a two's complement
// int64: what ToInt32 and its kin take the low bits of (FlowScript patch
// 80). Upstream converted with int64(f), which Go leaves undefined past
// ±2^63 (0x8000000000000000 on amd64), so 1e21|0 and a hash summed
// without |0 at each step came out 0. f is finite. math.Mod is exact, and
// a float past 2^53 is an integer.
func modInt64(f float64) int64 {
	if f > -(1<<63) && f < 1<<63 {
		return int64(f)
	}
	m := math.Mod(math.Trunc(f), 1<<64) // in (-2^64, 2^64), f's sign
	switch {
	case m >= 1<<63:
		m -= 1 << 64
	case m < -(1 << 63):
		m += 1 << 64
	}
	return int64(m)
}

// prefixedToFloat reads a 0x, 0b or 0o literal too long for an int64
// (stringToInt refused it) as the nearest Number, and reports whether s
// has such a prefix (FlowScript patch 81). Upstream read it as NaN:
// Number('0x8000000000000000') is 2^63 in ECMAScript.
func prefixedToFloat(s string) (float64, bool, error) {
	if len(s) < 3 || s[0] != '0' {
		return 0, false, nil
	}
	var base int
	switch s[1] {
	case 'x', 'X':
		base = 16
	case 'b', 'B':
		base = 2
	case 'o', 'O':
		base = 8
	default:
		return 0, false, nil
	}
	digits := s[2:]
	if digits[0] == '+' || digits[0] == '-' {
		return 0, true, strconv.ErrSyntax
	}
	n, ok := new(big.Int).SetString(digits, base)
	if !ok {
		return 0, true, strconv.ErrSyntax
	}
	f, _ := new(big.Float).SetInt(n).Float64() // the nearest, ties to even; +Inf past the largest
	return f, true, nil
}
