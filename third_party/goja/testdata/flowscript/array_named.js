(function () {
  const out = [];
  const show = (label, f) => { try { out.push(label + ": " + f()); } catch (e) { out.push(label + ": " + e.constructor.name); } };
  const named = () => { const a = [3, 1, 2]; a.tag = "t"; a.n = 1; return a; };
  show("named keys", () => { const a = named(); delete a.tag; a.z = 2; return Object.keys(a).join() + "|" + Object.getOwnPropertyNames(a).join(); });
  show("for-in named", () => { const a = named(); const r = []; for (const k in a) { r.push(k); } return r.join(); });
  show("methods", () => { const a = named(); return [a.concat([4]).join(), a.slice(1).length, a.toSorted ? "ts" : "-", [...a].sort().join(), a.includes(2), a.indexOf(2), a.flat().length, [[1], [2, [3]]].flat(2).join(), a.map(String).join("")].join(" "); });
  show("splice/fill/copyWithin", () => { const a = named(); a.splice(1, 1, 9, 8); a.fill(0, 3); a.copyWithin(0, 1); return JSON.stringify(a) + a.length + a.tag; });
  show("length shrink with named", () => { const a = named(); a.length = 1; a.length = 3; return JSON.stringify(a) + Object.getOwnPropertyNames(a).join(); });
  show("holes", () => { const a = [1, , 3]; a.q = 1; return [1 in a, a.hasOwnProperty(1), Object.keys(a).join(), a.length, JSON.stringify(a)].join(" "); });
  show("sparse named", () => { const a = []; a.name = "n"; a[20000] = 1; a.after = 2; const k = Object.getOwnPropertyNames(a); delete a.name; return k.join() + "|" + Object.getOwnPropertyNames(a).join() + "|" + a.length; });
  show("sparse to dense named", () => { const a = []; a.name = "n"; a[9000] = 1; for (let i = 0; i < 9000; i++) a[i] = 0; a.after = 2; return Object.getOwnPropertyNames(a).slice(-4).join() + "|" + a.hasOwnProperty("name"); });
  show("defineProperty named", () => { const a = [1]; Object.defineProperty(a, "hidden", { value: 5 }); Object.defineProperty(a, "vis", { value: 6, enumerable: true }); return Object.keys(a).join() + "|" + Object.getOwnPropertyNames(a).join() + "|" + JSON.stringify(Object.getOwnPropertyDescriptor(a, "hidden")); });
  show("getter on array", () => { const a = [1]; Object.defineProperty(a, "g", { get() { return this.length * 10; }, enumerable: true }); a.push(2); return a.g + "|" + Object.keys(a).join(); });
  show("preventExtensions named", () => { "use strict"; const a = Object.preventExtensions([1]); try { a.x = 1; } catch (e) { return e.constructor.name + a.length; } });
  show("isFrozen/isSealed variety", () => [Object.isFrozen(Object.freeze([])), Object.isFrozen(Object.freeze([1])), Object.isSealed(Object.seal([1])), Object.isFrozen(Object.seal([1])), Object.isFrozen(Object.freeze(Object.assign([], { x: 1 })))].join());
  show("entries/keys/values", () => [[...named().keys()].join(), [...named().entries()].join(";"), Object.values(named()).join()].join(" | "));
  show("destructure", () => { const [a, , ...r] = named(); const { 0: z, length, tag } = named(); return [a, r.join(), z, length, tag].join(); });
  show("JSON roundtrip", () => JSON.stringify(JSON.parse(JSON.stringify({ a: named(), b: [[], [[]], [null]] }))));
  show("Array.from array-like", () => Array.from({ length: 3, 0: "a", 2: "c" }).join("-") + "|" + Array.prototype.map.call({ length: 2, 0: 1, 1: 2 }, x => x * 2).join());
  show("array subclass named", () => { class B extends Array { constructor(...a) { super(...a); this.kind = "b"; } } const b = B.from([1, 2]); return [b.length, b.kind, Object.getOwnPropertyNames(b).join(), b.map(x => x) instanceof B].join(); });
  show("Object.defineProperties on array", () => { const a = [1, 2]; Object.defineProperties(a, { length: { value: 1 }, x: { value: 1, enumerable: true } }); return JSON.stringify(a) + Object.keys(a).join(); });
  show("structured length errors", () => { const a = []; try { a.length = 2 ** 32; } catch (e) { return e.constructor.name + a.length; } });
  show("Reflect.defineProperty length", () => { const a = [1, 2, 3]; return [Reflect.defineProperty(a, "length", { value: 1 }), a.length, Reflect.defineProperty(a, "length", { configurable: true }), Reflect.deleteProperty(a, "length"), Reflect.has(a, "length"), Reflect.getOwnPropertyDescriptor(a, "length").writable].join(); });
  show("proxy traps on array", () => { const log = []; const p = new Proxy([1, 2], { ownKeys(t) { log.push("ownKeys"); return Reflect.ownKeys(t); }, getOwnPropertyDescriptor(t, k) { log.push(String(k)); return Reflect.getOwnPropertyDescriptor(t, k); } }); Object.keys(p); return log.join(); });
  show("Object.entries order", () => { const a = ["x"]; a.b = 1; a[5] = "y"; a.a = 2; return JSON.stringify(Object.entries(a)) + Reflect.ownKeys(a).join(); });
  return out.join("\n");
})()
