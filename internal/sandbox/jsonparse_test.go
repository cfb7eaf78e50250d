package sandbox

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dop251/goja"

	"github.com/flowscript/flowscript/flowjob"
)

// v8ParseErrors are JSON.parse's errors as Node 20 (V8 11.3) reports them,
// taken with node -e 'JSON.parse(text)'. The sandbox reports the same.
var v8ParseErrors = []struct{ text, want string }{
	{"{bad", "SyntaxError: Expected property name or '}' in JSON at position 1"},
	{"", "SyntaxError: Unexpected end of JSON input"},
	{"   ", "SyntaxError: Unexpected end of JSON input"},
	{"[1,]", "SyntaxError: Unexpected token ']', \"[1,]\" is not valid JSON"},
	{"{\"a\":1,}", "SyntaxError: Expected double-quoted property name in JSON at position 7"},
	{"\"abc", "SyntaxError: Unterminated string in JSON at position 4"},
	{"\"a\u0001\"", "SyntaxError: Bad control character in string literal in JSON at position 2"},
	{"\"\\x\"", "SyntaxError: Bad escaped character in JSON at position 2"},
	{"01", "SyntaxError: Unexpected number in JSON at position 1"},
	{"-01", "SyntaxError: Unexpected number in JSON at position 2"},
	{"1.", "SyntaxError: Unterminated fractional number in JSON at position 2"},
	{"1.e5", "SyntaxError: Unterminated fractional number in JSON at position 2"},
	{"-", "SyntaxError: No number after minus sign in JSON at position 1"},
	{"[1 2]", "SyntaxError: Expected ',' or ']' after array element in JSON at position 3"},
	{"{\"a\" 1}", "SyntaxError: Expected ':' after property name in JSON at position 5"},
	{"{1:2}", "SyntaxError: Expected property name or '}' in JSON at position 1"},
	{"tru", "SyntaxError: Unexpected end of JSON input"},
	{"trux", "SyntaxError: Unexpected token 'x', \"trux\" is not valid JSON"},
	{"nul", "SyntaxError: Unexpected end of JSON input"},
	{"nulL", "SyntaxError: Unexpected token 'L', \"nulL\" is not valid JSON"},
	{"fals", "SyntaxError: Unexpected end of JSON input"},
	{"1e", "SyntaxError: Exponent part is missing a number in JSON at position 2"},
	{"1e+", "SyntaxError: Exponent part is missing a number in JSON at position 3"},
	{"\"\\u12\"", "SyntaxError: Bad Unicode escape in JSON at position 5"},
	{"\"\\u12G4\"", "SyntaxError: Bad Unicode escape in JSON at position 5"},
	{"[", "SyntaxError: Unexpected end of JSON input"},
	{"{", "SyntaxError: Expected property name or '}' in JSON at position 1"},
	{"{\"a\":", "SyntaxError: Unexpected end of JSON input"},
	{"{\"a\"", "SyntaxError: Expected ':' after property name in JSON at position 4"},
	{"{\"a\":1", "SyntaxError: Expected ',' or '}' after property value in JSON at position 6"},
	{"[1", "SyntaxError: Expected ',' or ']' after array element in JSON at position 2"},
	{"[1,", "SyntaxError: Unexpected end of JSON input"},
	{"x", "SyntaxError: Unexpected token 'x', \"x\" is not valid JSON"},
	{"1 2", "SyntaxError: Unexpected non-whitespace character after JSON at position 2"},
	{"[1]]", "SyntaxError: Unexpected non-whitespace character after JSON at position 3"},
	{"NaN", "SyntaxError: \"NaN\" is not valid JSON"},
	{"Infinity", "SyntaxError: \"Infinity\" is not valid JSON"},
	{"undefined", "SyntaxError: \"undefined\" is not valid JSON"},
	{"[-]", "SyntaxError: No number after minus sign in JSON at position 2"},
	{".5", "SyntaxError: Unexpected token '.', \".5\" is not valid JSON"},
	{"+1", "SyntaxError: Unexpected token '+', \"+1\" is not valid JSON"},
	{"{\"a\":1 \"b\":2}", "SyntaxError: Expected ',' or '}' after property value in JSON at position 7"},
	{"{\"a\":1,\"b\"}", "SyntaxError: Unexpected token '}', \"{\"a\":1,\"b\"}\" is not valid JSON"},
	{"[1,2,3,4,5,6,7,8,9,10,11,12,13,x]", "SyntaxError: Unexpected token 'x', ...\",11,12,13,x]\" is not valid JSON"},
	{"{\"key\":\"value\",\"other\":[1,2,3],\"bad\":tru}", "SyntaxError: Unexpected token '}', ...\",\"bad\":tru}\" is not valid JSON"},
	{"x123456789012345678901234567890", "SyntaxError: Unexpected token 'x', \"x123456789\"... is not valid JSON"},
	{"[1,2,3,4,5,6,7,8,9,10,11,12,x]", "SyntaxError: Unexpected token 'x', ...\",10,11,12,x]\" is not valid JSON"},
	{"\"é\" x", "SyntaxError: Unexpected non-whitespace character after JSON at position 4"},
	{"[\"é\", x]", "SyntaxError: Unexpected token 'x', \"[\"é\", x]\" is not valid JSON"},
	{"\"\t\"", "SyntaxError: Bad control character in string literal in JSON at position 1"},
	{"\"\\", "SyntaxError: Unexpected end of JSON input"},
	{"\"\\u", "SyntaxError: Bad Unicode escape in JSON at position 3"},
	{"\"\\u00", "SyntaxError: Bad Unicode escape in JSON at position 5"},
	{"[]]", "SyntaxError: Unexpected non-whitespace character after JSON at position 2"},
	{"{}x", "SyntaxError: Unexpected non-whitespace character after JSON at position 2"},
	{"{\"a\":1}}", "SyntaxError: Unexpected non-whitespace character after JSON at position 7"},
	{"[1,,2]", "SyntaxError: Unexpected token ',', \"[1,,2]\" is not valid JSON"},
	{"[,]", "SyntaxError: Unexpected token ',', \"[,]\" is not valid JSON"},
	{"{,}", "SyntaxError: Expected property name or '}' in JSON at position 1"},
	{"  1", "SyntaxError: Unexpected token ' ', \"  1\" is not valid JSON"},
	{"1\n\n2", "SyntaxError: Unexpected non-whitespace character after JSON at position 3"},
	{"{\"a\":1,\"b\" \"c\"}", "SyntaxError: Unexpected string in JSON at position 11"},
	{"{\"a\":1,\"b\" 1}", "SyntaxError: Unexpected number in JSON at position 11"},
	{"x1111111111111111111", "SyntaxError: Unexpected token 'x', \"x1111111111111111111\" is not valid JSON"},
	{"x11111111111111111111", "SyntaxError: Unexpected token 'x', \"x111111111\"... is not valid JSON"},
}

func TestJSONParseErrorsAreV8s(t *testing.T) {
	v := newTestVM(t)
	for _, c := range v8ParseErrors {
		got := v.parseOutcome(t, c.text)
		if c.want == "" {
			c.want = "ok"
		}
		if got != c.want && !strings.HasPrefix(got, "ok") {
			t.Errorf("JSON.parse(%q):\n got %s\nwant %s", c.text, got, c.want)
		}
	}
}

// TestJSONParseSemantics pins what the standard asks and goja's own
// JSON.parse got wrong or never had to answer.
func TestJSONParseSemantics(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"duplicate keys: last value, first position", `var o = JSON.parse('{"a":1,"b":2,"a":3}'); return Object.keys(o).join() + "=" + o.a`, "a,b=3"},
		{"__proto__ is an own data property", `var o = JSON.parse('{"__proto__":{"x":1}}'); return [Object.getPrototypeOf(o) === Object.prototype, Object.keys(o).join(), o.x, JSON.stringify(o)].join("|")`, "true|__proto__||{\"__proto__\":{\"x\":1}}"},
		{"a setter on Object.prototype never runs", `var hit = 0; Object.defineProperty(Object.prototype, "name", {set: function () { hit++ }, configurable: true}); var o = JSON.parse('{"name":"x"}'); return hit + o.name`, "0x"},
		{"a frozen inherited member does not block a key", `Object.freeze(Object.prototype); return JSON.parse('{"toString":1,"constructor":2}').constructor`, "2"},
		{"minus zero", `return Object.is(JSON.parse("-0"), -0) + "," + Object.is(JSON.parse("[-0.0]")[0], -0) + "," + Object.is(JSON.parse("0"), 0)`, "true,true,true"},
		{"big numbers and exponents", `return [JSON.parse("1e400"), JSON.parse("-1e400"), JSON.parse("1E-400"), JSON.parse("9007199254740993"), JSON.parse("123456789012345678901234567890"), JSON.parse("1.5e+3"), JSON.parse("0.1e1"), JSON.parse("-12345678901234567")].join()`, "Infinity,-Infinity,0,9007199254740992,1.2345678901234568e+29,1500,1,-12345678901234568"},
		{"escapes", `return JSON.stringify(JSON.parse('"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\\ud83d\\ude00"'))`, "\"\\\"\\\\/\\b\\f\\n\\r\\tAé€😀\""},
		{"an escaped lone surrogate stays one", `var s = JSON.parse('"a\\ud800b"'); return s.length + "," + s.charCodeAt(1).toString(16)`, "3,d800"},
		{"a raw lone surrogate in the text stays one", `var s = JSON.parse('"' + String.fromCharCode(0xdc00) + 'x"'); return s.length + "," + s.charCodeAt(0).toString(16)`, "2,dc00"},
		{"a key with a lone surrogate", `var o = JSON.parse('{"a":1,"\\udc00":2,"b":3}'); var k = Object.keys(o); return k.length + "," + k[1].charCodeAt(0).toString(16) + "," + o[k[1]] + "," + k[2]`, "3,dc00,2,b"},
		{"non-ASCII text", `var o = JSON.parse('{"nome":"João","ação":["ñ","日本"]}'); return o.nome + o["ação"].join("")`, "Joãoñ日本"},
		{"the argument goes through ToString", `return JSON.parse({toString: function () { return "[1,2]" }}).length`, "2"},
		{"no argument is undefined", `try { JSON.parse() } catch (e) { return e.name + ": " + e.message }`, "SyntaxError: \"undefined\" is not valid JSON"},
		{"the error's stack has the message", `try { JSON.parse("[1,") } catch (e) { return e.stack.split("\n")[0] }`, "SyntaxError: Unexpected end of JSON input"},
		{"errors are SyntaxErrors of this realm", `try { JSON.parse("{bad") } catch (e) { return (e instanceof SyntaxError) + " " + (e.constructor === SyntaxError) + " " + e.message }`, "true true Expected property name or '}' in JSON at position 1"},
		{"a replaced global SyntaxError is not used", `var Orig = SyntaxError; SyntaxError = function () {}; try { JSON.parse("x") } catch (e) { return e instanceof Orig }`, "true"},
		{"name and length", `return JSON.parse.name + JSON.parse.length + Object.getOwnPropertyDescriptor(JSON, "parse").enumerable`, "parse2false"},
		{"whitespace", `var ws = String.fromCharCode(32, 9, 10, 13); return JSON.parse(ws + "[" + ws + "1" + ws + "," + ws + "{" + ws + "\"a\"" + ws + ":" + ws + "2" + ws + "}" + ws + "]" + ws)[1].a`, "2"},
		{"nested depth at the limit", `return JSON.parse("[".repeat(500) + "]".repeat(500)).length`, "1"},
		{"nested one too deep", `try { JSON.parse("[".repeat(501) + "]".repeat(501)) } catch (e) { return e.name + ": " + e.message }`, "SyntaxError: JSON nests arrays and objects more than 500 levels deep at position 500"},
		{"reviver", `return JSON.stringify(JSON.parse('{"a":[1,2,{"b":3}],"c":"x"}', function (k, v) { return typeof v === "number" ? v * 10 : v }))`, "{\"a\":[10,20,{\"b\":30}],\"c\":\"x\"}"},
		{"reviver deletes on undefined and sees this", `var seen = []; var o = JSON.parse('{"a":1,"b":2,"c":[5,6]}', function (k, v) { seen.push(k + ":" + (this === undefined ? "u" : typeof this)); return k === "b" || k === "0" ? undefined : v }); return JSON.stringify(o) + " " + seen.join()`, "{\"a\":1,\"c\":[null,6]} a:object,b:object,0:object,1:object,c:object,:object"},
		{"reviver throws through", `try { JSON.parse("[1]", function () { throw new TypeError("no") }) } catch (e) { return e.name + e.message }`, "TypeErrorno"},
		{"a non-callable reviver is ignored", `return JSON.parse("[1]", 5)[0]`, "1"},
	} {
		t.Run(c.name, func(t *testing.T) { wantOutput(t, run(t, c.src), c.want) })
	}
}

// TestJSONRecordsKeepTheirOwnNames: the records of an array share one list
// of member names (goja.Shape); deleting, adding, redefining or freezing a
// member of one, inside a for-in of it or not, leaves the others as they
// were. The output is Node's.
func TestJSONRecordsKeepTheirOwnNames(t *testing.T) {
	const src = `const text = JSON.stringify(Array.from({ length: 12 }, (_, i) => ({ id: i, name: "n" + i, "2": "two", "1": "one", tag: "t" })));
const out = [text.length > 512];
const a = JSON.parse(text);
delete a[0].id;                 // the first name
delete a[1].tag;                // the last
delete a[2].name;               // one in the middle
a[3].extra = 1;                 // one more
Object.defineProperty(a[4], "name", { enumerable: false });
for (const k in a[5]) { if (k === "name") delete a[5].id; a[5]["x" + k] = k; }
out.push(...a.map((r) => Object.keys(r).join(",")));
out.push(JSON.stringify(a.slice(0, 7)));
const b = JSON.parse(text);
for (const r of b) { for (const k in r) { delete r[k]; break; } }
out.push(b.map((r) => Object.keys(r).join(",")).join(" | "));
const c = JSON.parse(text);
Object.freeze(c[0]); c[1].id = 9; delete c[2]["1"];
out.push(c.slice(0, 4).map((r) => Object.getOwnPropertyNames(r).join(",")).join(" | "), JSON.stringify(c.slice(0, 3)));
const dups = '[' + Array(30).fill('{"a":1,"a":2,"b":3}').join(',') + ',' + Array(30).fill('{"a":1,"b":2}').join(',') + ']';
const d = JSON.parse(dups);
delete d[31].a;
out.push(dups.length > 512, JSON.stringify(d.slice(28, 33)), d.map((r) => Object.keys(r).join("")).join(" "));
return out.join("\n");`
	const want = `true
1,2,name,tag
1,2,id,name
1,2,id,tag
1,2,id,name,tag,extra
1,2,id,tag
1,2,name,tag,x1,x2,xid,xname,xtag
1,2,id,name,tag
1,2,id,name,tag
1,2,id,name,tag
1,2,id,name,tag
1,2,id,name,tag
1,2,id,name,tag
[{"1":"one","2":"two","name":"n0","tag":"t"},{"1":"one","2":"two","id":1,"name":"n1"},{"1":"one","2":"two","id":2,"tag":"t"},{"1":"one","2":"two","id":3,"name":"n3","tag":"t","extra":1},{"1":"one","2":"two","id":4,"tag":"t"},{"1":"one","2":"two","name":"n5","tag":"t","x1":"1","x2":"2","xid":"id","xname":"name","xtag":"tag"},{"1":"one","2":"two","id":6,"name":"n6","tag":"t"}]
2,id,name,tag | 2,id,name,tag | 2,id,name,tag | 2,id,name,tag | 2,id,name,tag | 2,id,name,tag | 2,id,name,tag | 2,id,name,tag | 2,id,name,tag | 2,id,name,tag | 2,id,name,tag | 2,id,name,tag
1,2,id,name,tag | 1,2,id,name,tag | 2,id,name,tag | 1,2,id,name,tag
[{"1":"one","2":"two","id":0,"name":"n0","tag":"t"},{"1":"one","2":"two","id":9,"name":"n1","tag":"t"},{"2":"two","id":2,"name":"n2","tag":"t"}]
true
[{"a":2,"b":3},{"a":2,"b":3},{"a":1,"b":2},{"b":2},{"a":1,"b":2}]
ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab b ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab`
	wantOutput(t, run(t, src), want)
}

// TestJSONShapesShareASlot: lists of names that hash to one slot (an
// order record and its shipping member in the peer benchmark's orders)
// each get a shape by their second sighting, however they interleave; a
// list that names a member twice gets none.
func TestJSONShapesShareASlot(t *testing.T) {
	lists := [][]string{{"id", "createdAt", "status", "customer", "total", "currency", "items", "shipping", "notes"}, {"method", "cep"}}
	if shapeSlot(lists[0]) != shapeSlot(lists[1]) {
		t.Fatalf("the lists no longer share a slot (%d, %d): pick two that do", shapeSlot(lists[0]), shapeSlot(lists[1]))
	}
	p := &jsonParse{c: new(jsonCache)}
	defer p.c.forget()
	for round := range 3 {
		for _, names := range lists {
			shape := p.shapeOf(names)
			if round > 0 && (shape == nil || !shape.Is(names)) {
				t.Fatalf("round %d: %v has no shape", round, names)
			}
		}
	}
	twice := []string{"a", "b", "a"}
	for range 3 {
		if p.shapeOf(twice) != nil {
			t.Fatal("a shape for names with a duplicate")
		}
	}
	for _, names := range lists {
		if shape := p.shapeOf(names); shape == nil || !shape.Is(names) {
			t.Fatalf("%v lost its shape", names)
		}
	}
}

// TestJSONParseMatchesGoja: on text both accept, the sandbox's JSON.parse
// builds the same values as goja's own (the reference for everything but
// lone surrogates, numbers past the float range and errors).
func TestJSONParseMatchesGoja(t *testing.T) {
	v := newTestVM(t)
	ref := goja.New()
	for _, text := range jsonSeeds() {
		compareWithGoja(t, v, ref, text)
	}
}

// FuzzJSONParse: the same comparison on any text.
//
//	go test ./internal/sandbox -run '^$' -fuzz FuzzJSONParse -fuzztime 60s
func FuzzJSONParse(f *testing.F) {
	for _, text := range jsonSeeds() {
		f.Add(text)
	}
	for _, c := range v8ParseErrors {
		f.Add(c.text)
	}
	v := newTestVM(f)
	ref := goja.New()
	f.Fuzz(func(t *testing.T, text string) { compareWithGoja(t, v, ref, text) })
}

func jsonSeeds() []string {
	seeds := []string{
		`null`, `true`, `false`, `0`, `-0`, `1`, `-1`, `123456789012345`, `1234567890123456`, `0.5`, `-1.25e-7`, `1E+2`,
		`""`, `"abc"`, `"\u0000\u001f"`, `"é\u00e9"`, `"\ud83d\ude00"`, `"😀"`, `[]`, `{}`, `[[],{}]`,
		`{"a":{"b":{"c":[1,[2,[3]]]}}}`, `{"a":1,"a":2}`, `{"__proto__":null}`, `{"1":1,"0":0,"b":2,"a":3}`,
		` {"x" : [ true , false , null ] } `, `{"":""}`,
	}
	seeds = append(seeds, ordersJSON(3), ordersJSON(40), repeatsJSON())
	return seeds
}

// repeatsJSON is records whose values repeat, as an API response's
// enumerations do, in the forms the parser's caches of short strings and
// numbers must keep apart: a string and a number of the same text, an
// escaped and a plain spelling, -0 and 0, and pairs of texts that share a
// cache slot.
func repeatsJSON() string {
	values := []string{
		`"paid"`, `"pending"`, `"frete-grátis"`, `"\u0041"`, `"A"`, `"12"`, `12`, `-0`, `0`, `-0.0`,
		`1.5`, `1e2`, `100`, `255`, `256`, `-1`, `-256`, `999`, `1000`, `"1000"`, `""`, `"a\"b"`, `"\ud800"`, `3.14`, `-7.25`,
	}
	// Two texts of one slot, for strings and for numbers alike.
	for _, quote := range []string{`"`, ``} {
		seen := map[uint8]string{}
		for i := 1000; i < 3000 && len(seen) < 256; i++ {
			raw := strconv.Itoa(i)
			if old, ok := seen[slotOf(raw)]; ok {
				values = append(values, quote+old+quote, quote+raw+quote)
				break
			}
			seen[slotOf(raw)] = raw
		}
	}
	var b strings.Builder
	b.WriteByte('[')
	for i := range 300 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"v":%s,"w":[%s,%s]}`, values[i%len(values)], values[(i*7)%len(values)], values[(i*13+5)%len(values)])
	}
	b.WriteByte(']')
	return b.String()
}

// ordersJSON is an API response of n orders, like the peer benchmark's.
func ordersJSON(n int) string {
	var b strings.Builder
	b.WriteString(`{"page":1,"total":`)
	b.WriteString(strconv.Itoa(n))
	b.WriteString(`,"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"ord-%05d","status":%q,"customer":{"name":"Cliente %d","email":"c%d@example.com","vip":%t},"total":%d.%02d,"items":[{"sku":"SKU-%d","qty":%d,"price":%d.5}],"tags":["a","b\u00e9"],"note":null}`,
			i, []string{"paid", "pending", "cancelled"}[i%3], i, i, i%7 == 0, 10+i*13%900, i%100, i%50, 1+i%4, 5+i%30)
	}
	b.WriteString("]}")
	return b.String()
}

func newTestVM(tb testing.TB) *vm {
	tb.Helper()
	v, err := newVM(testLimits())
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// parseOutcome is "ok" and the value's dump, or the error JSON.parse threw.
func (v *vm) parseOutcome(tb testing.TB, text string) string {
	return outcome(tb, v.rt, v.rt.Get("JSON").ToObject(v.rt).Get("parse"), text)
}

func outcome(tb testing.TB, rt *goja.Runtime, parse goja.Value, text string) string {
	tb.Helper()
	fn, _ := goja.AssertFunction(parse)
	val, err := fn(goja.Undefined(), rt.ToValue(text))
	if err != nil {
		var ex *goja.Exception
		if !errors.As(err, &ex) {
			tb.Fatalf("JSON.parse(%q): %v", text, err)
		}
		obj := ex.Value().ToObject(rt)
		return obj.Get("name").String() + ": " + obj.Get("message").String()
	}
	return "ok " + dumpValue(val)
}

// compareWithGoja fails when the two parsers disagree on text, except where
// goja's own departs from the standard.
func compareWithGoja(t *testing.T, v *vm, ref *goja.Runtime, text string) {
	t.Helper()
	ours := v.parseOutcome(t, text)
	theirs := outcome(t, ref, ref.Get("JSON").ToObject(ref).Get("parse"), text)
	oursOK, theirsOK := strings.HasPrefix(ours, "ok "), strings.HasPrefix(theirs, "ok ")
	switch {
	case oursOK && theirsOK:
		if ours != theirs && !hasSurrogateEscape(text) {
			t.Fatalf("JSON.parse(%q):\n ours  %s\n goja  %s", text, ours, theirs)
		}
	case oursOK != theirsOK:
		// goja fails on numbers past the float range (the standard says
		// ±Infinity); the sandbox refuses nesting past MaxJSONNesting.
		if oursOK && strings.Contains(ours, "Inf") || strings.Contains(ours, "levels deep") {
			return
		}
		t.Fatalf("JSON.parse(%q):\n ours  %s\n goja  %s", text, ours, theirs)
	case !strings.HasPrefix(ours, "SyntaxError: "):
		t.Fatalf("JSON.parse(%q) threw %s, want a SyntaxError", text, ours)
	}
}

// hasSurrogateEscape: goja's own turns \uD800-\uDFFF escapes into U+FFFD,
// even when they pair up.
func hasSurrogateEscape(text string) bool {
	lower := strings.ToLower(text)
	for _, p := range []string{`\ud8`, `\ud9`, `\uda`, `\udb`, `\udc`, `\udd`, `\ude`, `\udf`} {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

// dumpValue writes a parsed value so that two equal dumps are the same
// value: key order, -0 and every UTF-16 unit of every string count.
func dumpValue(val goja.Value) string {
	var b strings.Builder
	var dump func(goja.Value)
	dump = func(val goja.Value) {
		switch x := val.(type) {
		case *goja.Object:
			if x.ClassName() == "Array" {
				b.WriteByte('[')
				n := int(x.Get("length").ToInteger())
				for i := range n {
					dump(x.Get(strconv.Itoa(i)))
					b.WriteByte(',')
				}
				b.WriteByte(']')
				return
			}
			b.WriteByte('{')
			for _, k := range x.Keys() {
				b.WriteString(strconv.Quote(k) + ":")
				dump(x.Get(k))
				b.WriteByte(',')
			}
			b.WriteByte('}')
		case goja.String:
			b.WriteByte('"')
			for i := range x.Length() {
				fmt.Fprintf(&b, "%04x", x.CharAt(i))
			}
			b.WriteByte('"')
		default:
			switch e := val.Export().(type) {
			case float64:
				fmt.Fprintf(&b, "f%v/%t", e, math.Signbit(e))
			case int64:
				fmt.Fprintf(&b, "f%v/%t", float64(e), false)
			default:
				fmt.Fprintf(&b, "%T:%v", e, e)
			}
		}
	}
	dump(val)
	return b.String()
}

// BenchmarkJSONParse: goja's own JSON.parse against the sandbox's, on an
// API response of 40 orders (about 11 KB), in the same runtime.
//
//	go test ./internal/sandbox -run '^$' -bench JSONParse -benchmem -count 5
func BenchmarkJSONParse(b *testing.B) {
	text := ordersJSON(40)
	v := newTestVM(b)
	ref := goja.New()
	for _, c := range []struct {
		name  string
		rt    *goja.Runtime
		parse goja.Value
	}{
		{"goja", ref, ref.Get("JSON").ToObject(ref).Get("parse")},
		{"sandbox", v.rt, v.rt.Get("JSON").ToObject(v.rt).Get("parse")},
	} {
		b.Run(c.name, func(b *testing.B) {
			fn, _ := goja.AssertFunction(c.parse)
			arg := c.rt.ToValue(text)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := fn(goja.Undefined(), arg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestResolutionCapIsJSONParse: flowjob refuses a resume whose resolution
// JSON.parse would refuse, and no other.
func TestResolutionCapIsJSONParse(t *testing.T) {
	if flowjob.MaxResolutionNesting != MaxJSONNesting {
		t.Fatalf("flowjob.MaxResolutionNesting is %d, JSON.parse reads %d levels", flowjob.MaxResolutionNesting, MaxJSONNesting)
	}
}
