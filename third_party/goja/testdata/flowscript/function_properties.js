(function () {
  function keys(o) {
    return Reflect.ownKeys(o).map(function (k) {
      const d = Object.getOwnPropertyDescriptor(o, k);
      let v = d.value;
      if (typeof v === "function") v = "fn:" + v.name;
      return String(k) + "=" + String(v) + (d.writable ? "w" : "") + (d.enumerable ? "e" : "") + (d.configurable ? "c" : "");
    }).join(" ");
  }
  const r = {};
  function decl(a, b) {}
  const arrow = (x) => x;
  const obj = { m(a) {}, get g() { return 1; } };
  class C { constructor(a, b, c) {} static s() {} }
  const bound = decl.bind(null, 1);
  r.fresh = [String.prototype.trim, Array.prototype.map, Set.prototype.has, JSON.parse, Math.max, decl, arrow, obj.m,
    Object.getOwnPropertyDescriptor(obj, "g").get, C, C.s, bound, String, Array.from].map(keys);
  r.protoSlots = ["trim", "slice", "charAt"].map(function (k) { return k + ":" + keys({ x: Object.getOwnPropertyDescriptor(String.prototype, k) }.x ? String.prototype : {}).split(" ").filter(function (e) { return e.indexOf(k + "=") === 0; })[0]; });
  // Grow past the two first properties, delete, re-add.
  const f = String.prototype.toUpperCase;
  f.extra1 = 1; f.extra2 = 2; f.extra3 = 3;
  r.grown = keys(f);
  delete f.length; r.noLength = keys(f);
  f.length = 7; r.lengthReadd = keys(f);
  Object.defineProperty(f, "length", { value: 9, configurable: true });
  r.lengthDefined = keys(f);
  delete f.name; delete f.extra2; r.noName = keys(f);
  Object.defineProperty(f, "name", { value: "renamed", enumerable: true, configurable: true, writable: true });
  r.nameDefined = keys(f) + " / " + f.name;
  // Delete while enumerating.
  const g = function h(p, q, s) {};
  g.a = 1; g.b = 2; g.c = 3;
  const seen = [];
  for (const k in g) { seen.push(k); if (k === "a") delete g.b; }
  r.forInDelete = seen.join(",") + " | " + keys(g);
  const names = Object.getOwnPropertyNames(g);
  delete g.length; g.z = 1;
  r.snapshot = names.join(",") + " | " + Object.getOwnPropertyNames(g).join(",");
  // Built-in method slots on a prototype: overwrite, redefine, delete.
  const orig = String.prototype.padStart;
  String.prototype.padStart = function mine() { return "mine"; };
  r.overwritten = "x".padStart(3) + " " + keys({ d: 0 }) + " " + JSON.stringify(Object.getOwnPropertyDescriptor(String.prototype, "padStart"), function (k, v) { return typeof v === "function" ? "fn:" + v.name : v; });
  Object.defineProperty(String.prototype, "padStart", { enumerable: true });
  r.madeEnumerable = JSON.stringify(Object.getOwnPropertyDescriptor(String.prototype, "padStart"), function (k, v) { return typeof v === "function" ? "fn:" + v.name : v; });
  Object.defineProperty(String.prototype, "padStart", { writable: false });
  try { "use strict"; String.prototype.padStart = orig; } catch (e) { r.readOnlyErr = e.name; }
  r.readOnly = String.prototype.padStart === orig;
  delete String.prototype.padStart;
  r.deleted = ("padStart" in String.prototype) + " " + typeof "x".padStart;
  String.prototype.padStart = orig;
  r.restored = "7".padStart(3, "0") + " " + Object.keys(String.prototype).join(",");
  // Freezing a built-in method.
  const t = Array.prototype.filter;
  Object.freeze(t);
  r.frozen = Object.isFrozen(t) + " " + keys(t);
  try { Object.defineProperty(t, "name", { value: "x" }); } catch (e) { r.frozenErr = e.name; }
  // Same method object each time, and two runtimes' worth of reads.
  r.same = [String.prototype.trim === String.prototype.trim, [].map === Array.prototype.map, new Set().has === Set.prototype.has].join(",");
  return JSON.stringify(r);
})();
