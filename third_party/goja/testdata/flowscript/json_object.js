(function () {
  function describe(o) {
    const out = [];
    for (const k of Reflect.ownKeys(o)) {
      const d = Object.getOwnPropertyDescriptor(o, k);
      const e = { key: String(k), enumerable: d.enumerable, configurable: d.configurable, writable: d.writable, type: typeof d.value };
      if (typeof d.value === "function") { e.name = d.value.name; e.length = d.value.length; }
      else e.value = String(d.value);
      out.push(e);
    }
    return out;
  }
  const r = {};
  // A method read before any listing (the lazy path), then every key.
  const stringify = JSON.stringify;
  r.first = [typeof stringify, stringify.name, stringify.length, stringify({ a: [1, "x"] })];
  r.keys = describe(JSON);
  r.identity = [JSON.stringify === stringify, JSON.parse === JSON.parse, JSON.rawJSON === JSON.rawJSON,
    Object.getPrototypeOf(JSON) === Object.prototype, Object.isExtensible(JSON), typeof JSON,
    Object.prototype.toString.call(JSON), String(JSON), Object.keys(JSON).length, JSON instanceof Object];
  r.behaviour = [JSON.parse('{"a":[1,2,{"b":null}]}').a[2].b === null, JSON.stringify(JSON.parse("[1,\"2\",true]")),
    JSON.isRawJSON(JSON.rawJSON("12")), JSON.stringify({ n: JSON.rawJSON("1e400") })];
  const names = [];
  for (const k in JSON) names.push(k);
  r.forIn = names;
  // Changes: a method replaced, one deleted, one redefined, then frozen.
  JSON.parse = function parse2() { return "mine"; };
  delete JSON.rawJSON;
  Object.defineProperty(JSON, "isRawJSON", { value: 7, enumerable: true });
  JSON.extra = 1;
  r.changed = describe(JSON);
  r.changedCalls = [JSON.parse("1"), JSON.isRawJSON, "rawJSON" in JSON];
  Object.freeze(JSON);
  r.frozen = [Object.isFrozen(JSON), describe(JSON).map(e => e.key + ":" + e.writable + e.configurable).join()];
  return JSON.stringify.call(null, r);
})()
