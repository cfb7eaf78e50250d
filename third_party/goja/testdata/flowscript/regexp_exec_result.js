// A match array of RegExpBuiltinExec gets index, input and groups as own data
// properties, in that order (CreateDataPropertyOrThrow): Object.keys lists
// them so, and a setter of those names on Object.prototype or Array.prototype
// never runs. Upstream set input before index, through the prototypes' setters.
(function () {
  const out = [];
  const log = (l, v) => out.push(l + "=" + JSON.stringify(v));
  const m = /(a)(?<n>b)?/.exec("xab");
  log("keys", Object.keys(m));
  log("own", Object.getOwnPropertyNames(m));
  log("desc", ["index", "input", "groups"].map((k) => { const d = Object.getOwnPropertyDescriptor(m, k); return [k, d.writable, d.enumerable, d.configurable]; }));
  let calls = 0;
  Object.defineProperty(Object.prototype, "index", { set(v) { calls++; }, get() { return "proto"; }, configurable: true });
  Object.defineProperty(Array.prototype, "input", { set(v) { calls++; }, get() { return "proto"; }, configurable: true });
  const m2 = /b/.exec("abc");
  log("setters", [m2.index, m2.input, calls, Object.keys(m2)]);
  const all = [..."abab".matchAll(/b/g)].map((x) => [x.index, x.input]);
  log("matchAll", [all, calls]);
  const mm = "a1b2".match(/\d/);
  log("match", [mm.index, mm.input, calls]);
  delete Object.prototype.index;
  delete Array.prototype.input;
  return out.join("\n");
})();
