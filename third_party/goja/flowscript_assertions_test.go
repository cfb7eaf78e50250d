package goja

import (
	"errors"
	"testing"
)

// TestRegExpPatch36MatchesNode: patch 36's cases, each with Node's answer.
// regexp2 kept one set and one string for two that differed only in their
// surrogates (emoji in a pattern without u, found with g), read \b and \B
// with Unicode word characters, and knew only \n as a line terminator for
// ^ and $ with m, as Go's regexp does; sticky searches of text with
// surrogates matched past their start, or stopped after an empty match.
func TestRegExpPatch36MatchesNode(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		// surrogates in sets and strings (third_party/regexp2)
		{`'Oi 😀'.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '')`, `Oi `},
		{`JSON.stringify('a😀b'.match(/[\ud800-\udbff][\udc00-\udfff]/g))`, `["😀"]`},
		{`JSON.stringify('a😀b'.split(/[\ud800-\udbff][\udc00-\udfff]/))`, `["a","b"]`},
		{`'x😁'.replace(/(😀)|(😁)/g,'[$1|$2]')`, `x[|😁]`},
		{`'a😁b😀'.replace(/😁/g,'-')`, `a-b😀`},
		// \b and \B
		{`JSON.stringify('Olá João 😀'.match(/\b\w+\b/g))`, `["Ol","Jo","o"]`},
		{`'Olá João 😀'.replace(/\b/g,'|')`, `|Ol|á |Jo|ã|o| 😀`},
		{`JSON.stringify('ée😀'.split(/\b/))`, `["é","e","😀"]`},
		{`JSON.stringify('olá😀 mundo'.replace(/\B/g, '.'))`, `"o.lá.\ud83d.\ude00. m.u.n.d.o"`},
		{`JSON.stringify('a\bb😀'.match(/[\b]/g))`, `["\b"]`},
		{`JSON.stringify('a\\b'.match(/\\b/))`, `["\\b"]`},
		{`JSON.stringify('ſ'.match(/\w/iu))`, `["ſ"]`},
		// ^ and $ with m: \n, \r, U+2028 and U+2029
		{`JSON.stringify('Nome: Ana\r\nCPF: 123\r\n'.match(/^CPF: (.*)$/m))`, `["CPF: 123","123"]`},
		{`JSON.stringify('a\r\nb\r\nc'.match(/^.*$/gm))`, `["a","","b","","c"]`},
		{`JSON.stringify('a\rb'.match(/^b/m))`, `["b"]`},
		{`String(/a$/m.test('a\u2029b'))`, `true`},
		{`JSON.stringify('x\r\ny'.split(/$/m))`, `["x","\r","\ny"]`},
		{`JSON.stringify('one two\r\nthree'.match(/\w+$/gm))`, `["two","three"]`},
		{`JSON.stringify('l1\nl2\r\nl3'.replace(/^/gm, '> '))`, `"> l1\n> l2\r> \n> l3"`},
		{`JSON.stringify('x^y$'.match(/[$^]/g))`, `["^","$"]`},
		{`JSON.stringify('a\n'.match(/a$/))`, `null`},
		{`JSON.stringify('a\n😀'.match(/a$/g))`, `null`},
		{`JSON.stringify('a\nb'.match(/^b/))`, `null`},
		// a $ in a group's name is no anchor; . keeps off line terminators
		{`JSON.stringify(new RegExp("(?<$x>a)$","m").exec("a"))`, `["a","a"]`},
		{`JSON.stringify(new RegExp("(?<$x>a)\\k<$x>$","gm").exec("aa\r\n"))`, `["aa","a"]`},
		{`String(/^x.y$/m.test("x\u2028y"))`, `false`},
		{`JSON.stringify(/^CPF: (.*)$/m.exec("CPF: 12\u20283\r\n")[1])`, `"12"`},
		{`String(/(?<=x).y/.test("x\u2028y"))`, `false`},
		{`JSON.stringify(("a\nb😀").match(/a.b/gs))`, `["a\nb"]`},
		{`JSON.stringify(("x[.]y😀").match(/[.]/g))`, `["."]`},
		// without u, i does not make ſ and the Kelvin sign word characters
		{`JSON.stringify(("\u212A😀").match(/\b/gi))`, `null`},
		{`JSON.stringify(("x\u017F😀").replace(/\B/gi,"|"))`, `"xſ|\ud83d|\ude00|"`},
		// sticky
		{`JSON.stringify('ola 😀'.replace(/\s/y,'_'))`, `"ola 😀"`},
		{`JSON.stringify('a😀'.replace(/😀/y,'_'))`, `"a😀"`},
		{`JSON.stringify(' ola 😀'.replace(/\s/y,'_'))`, `"_ola 😀"`},
		{`JSON.stringify('olá 😀'.match(/x*/gy))`, `["","","","","","",""]`},
		{`JSON.stringify('😀😀'.match(/x*/gyu))`, `["","",""]`},
		{`JSON.stringify('ab😀'.replace(/x*/gy,'-'))`, `"-a-b-\ud83d-\ude00-"`},
	} {
		v, err := New().RunString(c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got := v.String(); got != c.want {
			t.Errorf("%s: got %s, want %s (Node's)", c.src, got, c.want)
		}
	}
}

// TestReadOfNothingSaysWhich: reading a property of null or undefined
// throws V8's message, which says which of the two the value was (patch 38;
// upstream said "of undefined" for null too).
func TestReadOfNothingSaysWhich(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`const o = null; o.x`, `Cannot read properties of null (reading 'x')`},
		{`let o; o.x`, `Cannot read properties of undefined (reading 'x')`},
		{`const o = null; o['k']`, `Cannot read properties of null (reading 'k')`},
		{`const o = null; o.go()`, `Cannot read properties of null (reading 'go')`},
		{`let o; o[1]`, `Cannot read properties of undefined (reading '1')`},
		{`const a = [null]; a[0].name`, `Cannot read properties of null (reading 'name')`},
		{`const o = {}; o.a.b`, `Cannot read properties of undefined (reading 'b')`},
	} {
		_, err := New().RunString(c.src)
		var ex *Exception
		if !errors.As(err, &ex) || ex.Value().String() != "TypeError: "+c.want {
			t.Errorf("%s: %v, want TypeError: %s (Node's)", c.src, err, c.want)
		}
	}
}

// TestArrayToLocaleStringPassesLocales: an array's toLocaleString passes
// its locales and options to each item, as V8 does (patch 39); Node's
// answers.
func TestArrayToLocaleStringPassesLocales(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`[1234.5, 99.9].toLocaleString('pt-BR')`, `1.234,5,99,9`},
		{`[1234.5].toLocaleString('pt-BR', {style: 'currency', currency: 'BRL'})`, "R$\u00a01.234,50"},
		{`[1234.5, 'x', null, undefined, 7].toLocaleString('de-DE')`, `1.234,5,x,,,7`},
		{`[1234.5, [2000.25]].toLocaleString('pt-BR')`, `1.234,5,2.000,25`},
		{`new Float64Array([1234.5, 2.5]).toLocaleString('pt-BR')`, `1.234,5,2,5`},
		{`[1234.5].toLocaleString()`, `1,234.5`},
	} {
		v, err := New().RunString(c.src)
		if err != nil || v.String() != c.want {
			t.Errorf("%s: %v (%v), want %s", c.src, v, err, c.want)
		}
	}
}

// TestBigIntToLocaleString: a BigInt formats by locale and options as a
// number does (patch 40; upstream read the locale as a radix and threw);
// Node's answers.
func TestBigIntToLocaleString(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`(1234567n).toLocaleString('pt-BR')`, `1.234.567`},
		{`(1234567n).toLocaleString()`, `1,234,567`},
		{`(-1234567n).toLocaleString('de-DE')`, `-1.234.567`},
		{`(123456789012345678901234567890n).toLocaleString('pt-BR')`, `123.456.789.012.345.678.901.234.567.890`},
		{`(-123456789012345678901234567890n).toLocaleString('en-US')`, `-123,456,789,012,345,678,901,234,567,890`},
		{`(1234n).toLocaleString('pt-BR', {style: 'currency', currency: 'BRL'})`, "R$\u00a01.234,00"},
		{`(1234n).toLocaleString('es-ES')`, `1234`},
		{`(12345678901234567890n).toLocaleString('pt-BR', {minimumFractionDigits: 2})`, `12.345.678.901.234.567.890,00`},
		{`(1234567n).toLocaleString('fr-FR')`, "1\u202f234\u202f567"},
	} {
		v, err := New().RunString(c.src)
		if err != nil || v.String() != c.want {
			t.Errorf("%s: %v (%v), want %q", c.src, v, err, c.want)
		}
	}
}

// TestNode20BuiltIns: built-ins Node 20 has that upstream lacked (patch
// 41), with Node's answers.
func TestNode20BuiltIns(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`'ab\ud800'.isWellFormed()`, `false`},
		{`'ab😀'.isWellFormed()`, `true`},
		{`'\udc00x'.isWellFormed()`, `false`},
		{`JSON.stringify('a😀\udc00b\ud800'.toWellFormed())`, `"a😀�b�"`},
		{`'ção😀'.toWellFormed()`, `ção😀`},
		{`new Date(0).getYear()`, `70`},
		{`new Date(Date.UTC(2024, 5, 1)).getYear()`, `124`},
		{`String(new Date(NaN).getYear())`, `NaN`},
		{`String.prototype.isWellFormed.length + Date.prototype.getYear.length`, `0`},
	} {
		v, err := New().RunString(c.src)
		if err != nil || v.String() != c.want {
			t.Errorf("%s: %v (%v), want %s", c.src, v, err, c.want)
		}
	}
}
