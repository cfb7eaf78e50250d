// An iterator's result object has its own value and done (ECMA-262
// CreateIterResultObject: CreateDataProperty), so accessors of the same
// names on Object.prototype are never run, whether the loop steps the
// built-in iterator or a script calls next. Upstream goja set them through
// the prototype chain: a getter-only "done" there stopped every loop at once.
(function () {
  const out = [];
  const log = (label, v) => out.push(label + "=" + JSON.stringify(v));
  let got = 0, set = 0;
  Object.defineProperty(Object.prototype, "done", { get() { got++; return true; }, configurable: true });
  Object.defineProperty(Object.prototype, "value", {
    get() { got++; return "proto"; },
    set(v) { set++; },
    configurable: true,
  });
  log("loops", [[...new Set([1, 2])], [..."xy"], [...new Map([[1, 2]]).values()], [..."aa".matchAll(/a/g)].map((m) => m.index), [...[5, 6]]]);
  const r = new Set([1]).values().next();
  log("by hand", [Object.getOwnPropertyNames(r), r.value, r.done]);
  const a = [7][Symbol.iterator]().next();
  log("array by hand", [Object.getOwnPropertyNames(a), a.value, a.done]);
  function* gen() { yield 1; }
  const g = gen().next();
  log("generator", [Object.getOwnPropertyNames(g), g.value, g.done]);
  log("accessors run", [got, set]);
  delete Object.prototype.done;
  delete Object.prototype.value;
  return out.join("\n");
})();
