(function () {
  function describe(o) {
    const out = [];
    for (const k of Reflect.ownKeys(o)) {
      const d = Object.getOwnPropertyDescriptor(o, k);
      const e = { key: String(k), enumerable: d.enumerable, configurable: d.configurable };
      if ("value" in d) {
        e.writable = d.writable;
        e.type = typeof d.value;
        if (typeof d.value === "function") { e.name = d.value.name; e.length = d.value.length; }
        else if (typeof d.value !== "object") e.value = String(d.value);
      } else {
        e.get = d.get ? d.get.name + "/" + d.get.length : null;
        e.set = d.set ? d.set.name : null;
      }
      out.push(e);
    }
    return out;
  }
  const r = {};
  const fresh = [];
  // Reads before any listing (the lazy paths), then identity checks.
  fresh.push(String(1) + String.raw`x`, typeof RegExp.prototype[Symbol.replace], typeof new Set().add, typeof new Map().set);
  r.identity = {
    rxExec: RegExp.prototype.exec === RegExp.prototype.exec,
    rxCtor: RegExp.prototype.constructor === RegExp,
    rxReplace: RegExp.prototype[Symbol.replace] === RegExp.prototype[Symbol.replace],
    setKeys: Set.prototype.keys === Set.prototype.values && Set.prototype[Symbol.iterator] === Set.prototype.values,
    setCtor: Set.prototype.constructor === Set,
    mapIter: Map.prototype[Symbol.iterator] === Map.prototype.entries,
    mapCtor: Map.prototype.constructor === Map,
  };
  const before = RegExp.prototype[Symbol.split];
  r.regexp = describe(RegExp.prototype);
  r.identity.rxSplitKept = before === RegExp.prototype[Symbol.split];
  r.string = describe(String);
  class Str extends String { twice() { return this + this; } }
  r.stringBehaviour = [String(12), typeof new String("a"), new String("a") instanceof String, String.fromCharCode(65, 66),
    String.fromCodePoint(0x1F600).length, String.raw`a\n${1}`, String.prototype.constructor === String,
    Object.getPrototypeOf(String) === Function.prototype, String.name, String.length, String.toString(),
    new Str("ab").twice(), Object.prototype.toString.call(String), typeof String.prototype.trim];
  function named(a, b) {}
  const arrow = (x) => x;
  r.functions = [describe(named), describe(arrow), describe(Math.max), describe(class K { m() {} })];
  Object.defineProperty(named, "name", { value: "renamed" });
  delete arrow.name;
  arrow.name = "ignored";
  Object.defineProperty(Math.max, "length", { value: 7 });
  r.functionsChanged = [describe(named), describe(arrow), Math.max.length, named.name, [].map.name, (() => {}).name];
  r.set = describe(Set.prototype);
  r.map = describe(Map.prototype);
  r.behaviour = {
    test: /b/.test("abc"), replace: "a-b-c".replace(/-/g, "+"), split: "a1b2c".split(/\d/),
    match: "x12y34".match(/\d+/g), matchAll: [..."a1b2".matchAll(/\d/g)].map(m => m[0] + m.index),
    search: "abc".search(/c/), flags: /a/gimsuy.flags, source: /a\/b/.source,
    set: [...new Set([3, 1, 3, 2])], setSize: new Set([1, 1, 2]).size, setHas: new Set(["a"]).has("a"),
    map: [...new Map([["a", 1], ["b", 2]])].join(";"), mapSize: new Map([[1, 1]]).size,
    tags: Object.prototype.toString.call(new Set()) + Object.prototype.toString.call(new Map()),
    union: [...new Set([1, 2]).union(new Set([2, 3]))],
  };
  class S extends Set { add(v) { return super.add(v * 2); } }
  r.behaviour.subclass = [...new S([1, 2])];
  // The guard: a changed exec is what the standard methods call.
  const calls = [];
  const exec = RegExp.prototype.exec;
  RegExp.prototype.exec = function (s) { calls.push("exec"); return exec.call(this, s); };
  r.guard = { test: /b/.test("abc"), replace: "abc".replace(/b/, "x"), calls: calls.length > 0 };
  delete RegExp.prototype.exec;
  let threw = false;
  try { /b/.test("abc"); } catch (e) { threw = e instanceof TypeError; }
  r.guard.afterDelete = threw;
  Object.defineProperty(RegExp.prototype, "exec", { value: exec, writable: true, configurable: true });
  r.guard.restored = /b/.test("abc");
  RegExp.prototype[Symbol.search] = function () { return 42; };
  r.guard.search = "abc".search(/c/);
  r.guard.symbols = Reflect.ownKeys(RegExp.prototype).filter(k => typeof k === "symbol").map(String);
  const add = Set.prototype.add;
  Set.prototype.add = function (v) { return add.call(this, v + 10); };
  r.guard.setAdd = [...new Set([1, 2])];
  // Species: the default first (no constructor read yet), then each way to change it.
  const sp = [];
  const m1 = [1, 2].map((x) => x * 2);
  sp.push(JSON.stringify(m1), Object.getPrototypeOf(m1) === Array.prototype, [3, 4].filter((x) => x > 3).length,
    "a,b".split(/,/).join("|"), [1, [2]].flat().length, [1, 2].slice(1)[0], [1, 2, 3].splice(1, 1)[0]);
  const own = [1, 2];
  own.constructor = { [Symbol.species]: function (n) { this.made = n; } };
  const ownMapped = own.map((x) => x);
  sp.push(ownMapped.made, Array.isArray(ownMapped));
  const rx = /,/;
  rx.constructor = { [Symbol.species]: function (src, flags) { sp.push("species " + flags); return new RegExp(src, flags); } };
  sp.push("x,y".split(rx).join("|"));
  class MyArr extends Array {}
  sp.push(MyArr.from([1, 2]).map((x) => x) instanceof MyArr);
  Object.defineProperty(Array, Symbol.species, { get() { return function (n) { this.viaArray = n; }; } });
  sp.push([5, 6].map((x) => x).viaArray);
  Object.defineProperty(RegExp, Symbol.species, { get() { return function (src, flags) { return new RegExp("b", flags); }; } });
  sp.push("abc".split(/x/).join("|"));
  r.species = sp;
  return JSON.stringify({ fresh, r });
})()
