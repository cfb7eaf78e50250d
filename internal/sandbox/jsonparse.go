package sandbox

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// MaxJSONNesting is how deeply JSON.parse lets arrays and objects nest. The
// parser recurses in Go once per level, like goja's compiler does per
// bracket of a source (see MaxNesting), so it has the same bound: text that
// nests deeper is refused with a SyntaxError at the bracket that went one
// level too deep, never by a stack overflow that ends the worker. API
// responses nest a handful of levels. (V8 has no such bound; goja's own
// JSON.parse had none either and recursed until the worker died.)
const MaxJSONNesting = MaxNesting

// jsonParse is the sandbox's JSON.parse (ECMA-262 §25.5.1). goja's own
// decodes through encoding/json's token decoder, which allocates an
// interface value per token and spends most of a JSON-heavy script's time
// in allocation and GC; this one scans the text once and builds goja values
// directly. What differs from goja's, on purpose, and follows the standard
// and V8 instead:
//   - a \uD800 escape or a lone surrogate in the text stays a lone
//     surrogate (encoding/json turns both into U+FFFD);
//   - errors are SyntaxErrors with V8's messages and positions (a UTF-16
//     index into the text), e.g. `Expected ',' or '}' after property value
//     in JSON at position 9`, so that an author sees what Node would say;
//   - nesting deeper than MaxJSONNesting is a SyntaxError, not a crash.
//
// Objects get their members with CreateDataProperty semantics: "__proto__"
// is an own data property, a setter or a frozen member of Object.prototype
// is never triggered, and a duplicate key keeps its first position and its
// last value.
type jsonParse struct {
	rt   *goja.Runtime
	src  string // the text, WTF-8: a lone surrogate is its 3-byte encoding
	pos  int    // byte offset into src
	deep int
	// items is a stack of array elements shared by the nested arrays; an
	// array's elements are items[start:] while it is parsed.
	items []any
	// members is the same for objects: an object's members are
	// members[start:] while it is parsed, so that it is made at its size.
	members []jsonMember
	// names and vals are scratch for newObject.
	names []string
	vals  []goja.Value
	units []uint16 // scratch for strings that need decoding
	// c remembers the values met in this text, when it is long enough for
	// values to repeat; nil otherwise.
	c *jsonCache
}

// A jsonCache remembers what a text repeats, so that a repeat costs a
// comparison instead of allocations: an API response repeats its
// categories, statuses and tags (strs), its ratings, price points and years
// (nums), and the member names of its records (shapes: the records share
// one list of names, a goja.Shape), in every record. A slot holds the last
// value that hashed to it. used, usedNums and usedShapes list the slots
// filled, which forget empties when the parse ends, so that no text
// outlives its parse here; the emptied cache goes back to jsonCaches for
// the next parse on any runtime.
type jsonCache struct {
	strs       [jsonStringSlots]jsonString
	nums       [jsonStringSlots]jsonString // numbers that need an allocation
	shapes     [jsonShapeSlots]jsonShape
	used       []uint8
	usedNums   []uint8
	usedShapes []uint8
}

var jsonCaches = sync.Pool{New: func() any { return new(jsonCache) }}

// jsonCacheMin is the shortest text a cache is used for: in a shorter one
// little repeats, and the cache would cost more than it saves.
const jsonCacheMin = 512

// jsonStringSlots is the number of slots for strings and for numbers,
// and jsonStringMax the longest raw text they hold: longer strings are
// names, sentences and identifiers, which rarely repeat. jsonShapeSlots
// is the number of slots for lists of names.
const (
	jsonStringSlots = 256
	jsonStringMax   = 32
	jsonShapeSlots  = 64
)

// A list of member names gets a shape the second time it is met in a row
// at its slots, so that objects whose names never repeat pay a hash of
// their names, not a shape each.
type jsonShape struct {
	shape *goja.Shape
	seen  uint64 // the fingerprint of the last names met here without a shape
	twice uint64 // the fingerprint of the last names here that name a member twice
}

type jsonString struct {
	raw string
	val goja.Value
}

// jsonMember is one member of an object being parsed; odd is its name
// when the name holds a lone surrogate, which a Go string cannot hold.
type jsonMember struct {
	name string
	odd  goja.String
	val  goja.Value
}

// jsonError is a parse failure, thrown as a SyntaxError.
type jsonError struct{ msg string }

// run parses the whole text.
func (p *jsonParse) run() (val goja.Value, jerr *jsonError) {
	defer func() {
		if x := recover(); x != nil {
			e, ok := x.(*jsonError)
			if !ok {
				panic(x)
			}
			clear(p.items)
			p.items = p.items[:0]
			val, jerr = nil, e
		}
	}()
	if len(p.src) >= jsonCacheMin {
		p.c = jsonCaches.Get().(*jsonCache)
		defer func() {
			p.c.forget()
			jsonCaches.Put(p.c)
			p.c = nil
		}()
	}
	return p.parse(), nil
}

// forget empties the slots filled.
func (c *jsonCache) forget() {
	for _, i := range c.used {
		c.strs[i] = jsonString{}
	}
	c.used = c.used[:0]
	for _, i := range c.usedNums {
		c.nums[i] = jsonString{}
	}
	c.usedNums = c.usedNums[:0]
	for _, i := range c.usedShapes {
		c.shapes[i] = jsonShape{}
	}
	c.usedShapes = c.usedShapes[:0]
}

// slotFor is raw's slot in table (strs or nums), noted in used when it was
// empty, and whether it holds raw's value; when it does not, it is raw's
// now, and the caller sets its value.
func slotFor(table *[jsonStringSlots]jsonString, used *[]uint8, raw string) (*jsonString, bool) {
	i := slotOf(raw)
	slot := &table[i]
	if slot.val != nil && slot.raw == raw {
		return slot, true
	}
	if slot.val == nil {
		*used = append(*used, i)
	}
	slot.raw = raw
	return slot, false
}

// slotOf is the slot of strs or nums for a raw text of 1 to jsonStringMax
// bytes: a multiplicative hash of its length and three bytes, which tells
// apart the values of a record's field (enumerations differ in their
// length or in their first, middle or last byte).
func slotOf(raw string) uint8 {
	h := uint64(len(raw)) | uint64(raw[0])<<8 | uint64(raw[len(raw)/2])<<16 | uint64(raw[len(raw)-1])<<24
	return uint8((h * 0x9E3779B97F4A7C15) >> 56)
}

// parse parses the whole text. It panics with *jsonError on bad input.
func (p *jsonParse) parse() goja.Value {
	p.space()
	v := p.value()
	p.space()
	if p.pos < len(p.src) {
		p.fail(fmt.Sprintf("Unexpected non-whitespace character after JSON at position %d", p.unitIndex(p.pos)))
	}
	return v
}

func (p *jsonParse) space() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParse) value() goja.Value {
	if p.pos >= len(p.src) {
		p.unexpected()
	}
	switch c := p.src[p.pos]; {
	case c == '"':
		return p.str()
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		p.literal("true")
		return p.rt.ToValue(true)
	case c == 'f':
		p.literal("false")
		return p.rt.ToValue(false)
	case c == 'n':
		p.literal("null")
		return goja.Null()
	}
	p.unexpected()
	return nil
}

func (p *jsonParse) literal(word string) {
	for i := 1; i < len(word); i++ {
		at := p.pos + i
		if at >= len(p.src) {
			p.pos = at
			p.fail("Unexpected end of JSON input")
		}
		if p.src[at] != word[i] {
			p.pos = at
			p.unexpected()
		}
	}
	p.pos += len(word)
}

func (p *jsonParse) enter() {
	p.deep++
	if p.deep > MaxJSONNesting {
		panic(&jsonError{msg: fmt.Sprintf(
			"JSON nests arrays and objects more than %d levels deep at position %d",
			MaxJSONNesting, p.unitIndex(p.pos))})
	}
}

func (p *jsonParse) array() goja.Value {
	p.enter()
	p.pos++ // [
	start := len(p.items)
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
	} else {
		for {
			p.items = append(p.items, p.value())
			p.space()
			if p.pos >= len(p.src) || p.src[p.pos] != ',' && p.src[p.pos] != ']' {
				p.failAt("Expected ',' or ']' after array element", p.pos)
			}
			p.pos++
			if p.src[p.pos-1] == ']' {
				break
			}
			p.space()
		}
	}
	arr := p.rt.NewArray(p.items[start:]...)
	clear(p.items[start:])
	p.items = p.items[:start]
	p.deep--
	return arr
}

func (p *jsonParse) object() goja.Value {
	p.enter()
	p.pos++ // {
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		p.deep--
		return p.rt.NewObject()
	}
	start := len(p.members)
	first := true
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			if first {
				p.failAt("Expected property name or '}'", p.pos)
			}
			p.failAt("Expected double-quoted property name", p.pos)
		}
		name, odd := p.key()
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			if !first {
				p.unexpected() // V8 words only the first member's missing colon
			}
			p.failAt("Expected ':' after property name", p.pos)
		}
		p.pos++
		p.space()
		val := p.value()
		first = false
		p.members = append(p.members, jsonMember{name: name, odd: odd, val: val})
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ',' && p.src[p.pos] != '}' {
			p.failAt("Expected ',' or '}' after property value", p.pos)
		}
		p.pos++
		if p.src[p.pos-1] == '}' {
			break
		}
		p.space()
	}
	members := p.members[start:]
	obj := p.newObject(members)
	clear(members)
	p.members = p.members[:start]
	p.deep--
	return obj
}

// newObject makes the object of members.
func (p *jsonParse) newObject(members []jsonMember) *goja.Object {
	names, vals := p.names[:0], p.vals[:0]
	for _, m := range members {
		if m.odd != nil {
			return p.newOddObject(members)
		}
		names = append(names, m.name)
		vals = append(vals, m.val)
	}
	var obj *goja.Object
	if shape := p.shapeOf(names); shape != nil {
		obj = p.rt.NewShapedObject(shape, vals)
	} else {
		obj = p.rt.NewDataObject(names, vals)
	}
	clear(names)
	clear(vals)
	p.names, p.vals = names[:0], vals[:0]
	return obj
}

// shapeOf is the shape of names (p.names), or nil when they have none yet
// or name a member twice. A list of names has two slots, so that two lists
// that hash alike (a record's and one of its members') both get a shape.
func (p *jsonParse) shapeOf(names []string) *goja.Shape {
	c := p.c
	if c == nil {
		return nil
	}
	i := shapeSlot(names)
	pair := [2]uint8{i, (i + 1) % jsonShapeSlots}
	for _, j := range pair {
		if shape := c.shapes[j].shape; shape != nil && shape.Is(names) {
			return shape
		}
	}
	fp := fingerprint(names)
	for _, j := range pair {
		switch slot := &c.shapes[j]; fp {
		case slot.twice:
			return nil
		case slot.seen:
			shape := goja.NewShape(slices.Clone(names))
			if shape == nil {
				slot.twice = fp
			} else {
				slot.shape, slot.seen = shape, 0
			}
			return shape
		}
	}
	// A first sighting: noted in an empty slot, else in one without a
	// shape, else beside the shape of the second slot.
	j := pair[1]
	if a, b := c.shapes[pair[0]], c.shapes[pair[1]]; a == (jsonShape{}) || a.shape == nil && b.shape != nil {
		j = pair[0]
	}
	if c.shapes[j] == (jsonShape{}) {
		c.usedShapes = append(c.usedShapes, j)
	}
	c.shapes[j].seen = fp
	return nil
}

// shapeSlot is the first slot of names: a multiplicative hash of their
// number, the lengths of the first and the last, and a byte of each.
func shapeSlot(names []string) uint8 {
	first, last := names[0], names[len(names)-1]
	h := uint64(len(names)) | uint64(len(first))<<8 | uint64(len(last))<<16
	if first != "" {
		h |= uint64(first[0]) << 24
	}
	if last != "" {
		h |= uint64(last[len(last)-1]) << 32
	}
	return uint8((h * 0x9E3779B97F4A7C15) >> 58) // 6 bits: jsonShapeSlots
}

// fingerprint is an FNV-1a hash of names, never 0.
func fingerprint(names []string) uint64 {
	h := uint64(14695981039346656037)
	for _, name := range names {
		for i := 0; i < len(name); i++ {
			h = (h ^ uint64(name[i])) * 1099511628211
		}
		h = (h ^ 0xFF) * 1099511628211 // a byte no UTF-8 name holds ends each
	}
	return h | 1
}

// newOddObject makes the object of members when a name holds a lone
// surrogate.
func (p *jsonParse) newOddObject(members []jsonMember) *goja.Object {
	obj := p.rt.NewObjectSized(len(members))
	for _, m := range members {
		if m.odd == nil {
			// Never fails: obj is an ordinary, extensible object and every
			// member it has so far is a configurable data property.
			obj.PutDataProperty(m.name, m.val)
		} else {
			obj.CreateDataPropertyOrThrow(m.odd, m.val)
		}
	}
	return obj
}

// key reads a member name: name, or odd when a Go string cannot carry it
// (it holds a lone surrogate).
func (p *jsonParse) key() (name string, odd goja.String) {
	raw, simple := p.scanString()
	if simple {
		return raw, nil
	}
	p.decode(raw)
	for i := 0; i < len(p.units); i++ {
		u := rune(p.units[i])
		switch {
		case !utf16.IsSurrogate(u):
		case u < 0xDC00 && i+1 < len(p.units) && p.units[i+1] >= 0xDC00 && p.units[i+1] <= 0xDFFF:
			i++
		default:
			return "", goja.StringFromUTF16(p.units)
		}
	}
	return string(utf16.Decode(p.units)), nil
}

func (p *jsonParse) str() goja.Value {
	raw, simple := p.scanString()
	if p.c == nil || len(raw) == 0 || len(raw) > jsonStringMax {
		return p.newString(raw, simple)
	}
	slot, hit := slotFor(&p.c.strs, &p.c.used, raw)
	if !hit {
		slot.val = p.newString(raw, simple)
	}
	return slot.val
}

// newString is the value of a string whose raw text (between the quotes)
// is raw; simple says it is ASCII without escapes.
func (p *jsonParse) newString(raw string, simple bool) goja.Value {
	if simple {
		return goja.NewASCIIString(raw)
	}
	p.decode(raw)
	return goja.StringFromUTF16(p.units)
}

// scanString reads a string literal from its opening quote and returns its
// raw text (between the quotes), and whether that text is the value itself:
// ASCII without escapes.
func (p *jsonParse) scanString() (string, bool) {
	p.pos++ // "
	start := p.pos
	simple := true
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return p.src[start : p.pos-1], simple
		case c == '\\':
			simple = false
			p.pos++
			if p.pos >= len(p.src) {
				p.fail("Unexpected end of JSON input")
			}
			switch p.src[p.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos++
			case 'u':
				for i := 1; i <= 4; i++ {
					if p.pos+i >= len(p.src) {
						p.failAt("Bad Unicode escape", len(p.src))
					}
					if hexValue(p.src[p.pos+i]) < 0 {
						p.failAt("Bad Unicode escape", p.pos+i)
					}
				}
				p.pos += 5
			default:
				p.failAt("Bad escaped character", p.pos)
			}
		case c < 0x20:
			p.failAt("Bad control character in string literal", p.pos)
		default:
			if c >= utf8.RuneSelf {
				simple = false
			}
			p.pos++
		}
	}
	p.failAt("Unterminated string", len(p.src))
	return "", false
}

// decode fills p.units with the UTF-16 code units of a checked raw string.
func (p *jsonParse) decode(raw string) {
	p.units = p.units[:0]
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			e := raw[i+1]
			i += 2
			switch e {
			case 'b':
				p.units = append(p.units, '\b')
			case 'f':
				p.units = append(p.units, '\f')
			case 'n':
				p.units = append(p.units, '\n')
			case 'r':
				p.units = append(p.units, '\r')
			case 't':
				p.units = append(p.units, '\t')
			case 'u':
				u := hexValue(raw[i])<<12 | hexValue(raw[i+1])<<8 | hexValue(raw[i+2])<<4 | hexValue(raw[i+3])
				p.units = append(p.units, uint16(u))
				i += 4
			default: // " \ /
				p.units = append(p.units, uint16(e))
			}
		case c < utf8.RuneSelf:
			p.units = append(p.units, uint16(c))
			i++
		default:
			r, n := decodeWTF8(raw[i:])
			if utf16.IsSurrogate(r) {
				p.units = append(p.units, uint16(r)) // AppendRune would make it U+FFFD
			} else {
				p.units = utf16.AppendRune(p.units, r)
			}
			i += n
		}
	}
}

// decodeWTF8 decodes one character of UTF-8 that may also encode a lone
// surrogate (ED A0 80 – ED BF BF), which jsonText produces for the text's
// lone surrogates.
func decodeWTF8(s string) (rune, int) {
	if len(s) >= 3 && s[0] == 0xED && s[1] >= 0xA0 && s[1] <= 0xBF {
		return rune(s[0]&0x0F)<<12 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), 3
	}
	return utf8.DecodeRuneInString(s)
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func (p *jsonParse) number() goja.Value {
	start := p.pos
	neg := p.src[p.pos] == '-'
	if neg {
		p.pos++
	}
	digits := p.pos
	switch {
	case p.pos >= len(p.src) || !isDigit(p.src[p.pos]):
		p.failAt("No number after minus sign", p.pos)
	case p.src[p.pos] == '0':
		p.pos++
		if p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.failAt("Unexpected number", p.pos)
		}
	default:
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
	}
	integer := p.pos - digits
	fraction := p.pos < len(p.src) && p.src[p.pos] == '.'
	if fraction {
		p.pos++
		if p.pos >= len(p.src) || !isDigit(p.src[p.pos]) {
			p.failAt("Unterminated fractional number", p.pos)
		}
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
	}
	exponent := p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E')
	if exponent {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(p.src) || !isDigit(p.src[p.pos]) {
			p.failAt("Exponent part is missing a number", p.pos)
		}
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
	}
	raw, real := p.src[start:p.pos], fraction || exponent
	if !real && !neg && (integer < 3 || integer == 3 && raw < "256") {
		return p.newNumber(raw, 0, integer, false) // 0–255: Go boxes them without allocating
	}
	if p.c == nil || len(raw) > jsonStringMax {
		return p.newNumber(raw, digits-start, integer, real)
	}
	slot, hit := slotFor(&p.c.nums, &p.c.usedNums, raw)
	if !hit {
		slot.val = p.newNumber(raw, digits-start, integer, real)
	}
	return slot.val
}

// newNumber is the value of the number whose text is raw, with sign bytes
// before its integer digits and a fraction or exponent when real.
func (p *jsonParse) newNumber(raw string, sign, integer int, real bool) goja.Value {
	if !real && integer <= 15 {
		var n int64
		for _, c := range []byte(raw[sign : sign+integer]) {
			n = n*10 + int64(c-'0')
		}
		switch {
		case sign > 0 && n == 0:
			return goja.NewFloat(negativeZero)
		case sign > 0:
			n = -n
		}
		return goja.NewInt(n)
	}
	// Correctly rounded, as the standard asks; past the float range it is
	// ±Infinity, which ParseFloat returns beside its range error.
	f, _ := strconv.ParseFloat(raw, 64)
	return goja.NewFloat(f)
}

var negativeZero = func() float64 { z := 0.0; return -z }()

// unexpected fails at the character at p.pos, as V8 words a token it did
// not expect there.
func (p *jsonParse) unexpected() {
	if p.pos >= len(p.src) {
		p.fail("Unexpected end of JSON input")
	}
	switch c := p.src[p.pos]; {
	case c == '"':
		p.failAt("Unexpected string", p.pos)
	case c == '-' || isDigit(c):
		p.failAt("Unexpected number", p.pos)
	}
	text := utf16.Encode(wtf8Runes(p.src))
	at := p.unitIndex(p.pos)
	switch string(utf16.Decode(text)) {
	case "NaN", "Infinity", "undefined", "[object Object]":
		p.fail(`"` + string(utf16.Decode(text)) + `" is not valid JSON`)
	}
	token := string(utf16.Decode(text[at : at+1]))
	const context = 10
	if len(text) < 2*context+1 {
		p.fail(fmt.Sprintf("Unexpected token '%s', \"%s\" is not valid JSON", token, string(utf16.Decode(text))))
	}
	from, to := max(0, at-context), min(len(text), at+context)
	snippet := string(utf16.Decode(text[from:to]))
	prefix, suffix := "...", "..."
	if from == 0 {
		prefix = ""
	}
	if to == len(text) {
		suffix = ""
	}
	p.fail(fmt.Sprintf("Unexpected token '%s', %s\"%s\"%s is not valid JSON", token, prefix, snippet, suffix))
}

func (p *jsonParse) failAt(what string, at int) {
	p.fail(fmt.Sprintf("%s in JSON at position %d", what, p.unitIndex(at)))
}

func (p *jsonParse) fail(msg string) { panic(&jsonError{msg: msg}) }

// unitIndex turns a byte offset into src into an index in UTF-16 code units,
// which is what the script sees as a position.
func (p *jsonParse) unitIndex(at int) int {
	n := 0
	for i := 0; i < at && i < len(p.src); {
		if p.src[i] < utf8.RuneSelf {
			i++
			n++
			continue
		}
		r, size := decodeWTF8(p.src[i:])
		i += size
		n += utf16.RuneLen(r)
	}
	return n
}

// wtf8Runes decodes the whole text, lone surrogates included.
func wtf8Runes(s string) []rune {
	out := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		r, n := decodeWTF8(s[i:])
		out = append(out, r)
		i += n
	}
	return out
}

// jsonText is the text JSON.parse reads: its argument's string, in UTF-8,
// with each lone surrogate of the string in the 3-byte form decodeWTF8
// reads (goja's String method would turn them into U+FFFD).
func jsonText(s goja.String) string {
	text := s.String()
	if !strings.Contains(text, "\uFFFD") {
		return text // ASCII, or every surrogate paired
	}
	var b strings.Builder
	b.Grow(len(text))
	n := s.Length()
	for i := 0; i < n; i++ {
		u := s.CharAt(i)
		switch {
		case u < utf8.RuneSelf:
			b.WriteByte(byte(u))
		case u >= 0xD800 && u < 0xDC00 && i+1 < n && s.CharAt(i+1) >= 0xDC00 && s.CharAt(i+1) <= 0xDFFF:
			b.WriteRune(utf16.DecodeRune(rune(u), rune(s.CharAt(i+1))))
			i++
		case utf16.IsSurrogate(rune(u)):
			b.WriteByte(0xE0 | byte(u>>12))
			b.WriteByte(0x80 | byte(u>>6)&0x3F)
			b.WriteByte(0x80 | byte(u)&0x3F)
		default:
			b.WriteRune(rune(u))
		}
	}
	return b.String()
}
