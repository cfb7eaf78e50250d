package goja

import (
	"os"
	"strings"
	"testing"
)

// TestLazyPrototypesMatchUpstream runs testdata/flowscript/lazy_prototypes.js,
// which reads RegExp.prototype, Set.prototype and Map.prototype in the
// orders the FlowScript patches make lazy (see FLOWSCRIPT.md): a property
// read before any listing, every own key with its descriptor, identities
// (keys === values, constructor), the standard methods' behaviour, and the
// guard that turns off the RegExp fast paths when exec is changed. The
// expected output was produced by upstream goja at the commit this copy
// starts from, before the patches.
func TestLazyPrototypesMatchUpstream(t *testing.T) {
	src, err := os.ReadFile("testdata/flowscript/lazy_prototypes.js")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/flowscript/lazy_prototypes.want.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := New().RunString(string(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := v.String(); got != strings.TrimSpace(string(want)) {
		t.Errorf("the patched prototypes differ from upstream goja's:\n got: %s\nwant: %s", got, want)
	}
}

// TestRegExpSymbolsReadOneByOne: a symbol-keyed method read before the
// others keeps its identity when all of them are materialised, and the
// symbols keep the template's order.
func TestRegExpSymbolsReadOneByOne(t *testing.T) {
	const src = `
	const p = RegExp.prototype;
	const split = p[Symbol.split], replace = p[Symbol.replace];
	p[Symbol.matchAll] = function () {};
	const keys = Reflect.ownKeys(p).filter(k => typeof k === "symbol").map(String).join();
	[split === p[Symbol.split], replace === p[Symbol.replace], keys, "a,b".split(/,/).length].join(";")`
	v, err := New().RunString(src)
	if err != nil {
		t.Fatal(err)
	}
	const want = "true;true;Symbol(Symbol.match),Symbol(Symbol.matchAll),Symbol(Symbol.search),Symbol(Symbol.split),Symbol(Symbol.replace);2"
	if got := v.String(); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
