// Property reads on string primitives (FlowScript patch 13): length, index,
// methods and inherited accessors, alternating between strings so that the
// one wrapper object is pointed at each in turn.
(function () {
  "use strict";
  const out = [];
  const a = "xy", b = "héllo", c = "a😀b", e = "";
  out.push([a.length, b.length, c.length, e.length]);
  out.push([a[1], b[1], c[1].charCodeAt(0), a[5], b["length"], c["1"].length]);
  out.push([a.charAt(0), b.toUpperCase(), c.codePointAt(1), b.length, a.length]);
  const names = ["length", "0", "4", "5"];
  out.push(names.map((n) => [a[n], b[n]]));
  Object.defineProperty(Object.prototype, "kind", { get() { return typeof this + ":" + this.length; }, configurable: true });
  out.push([a.kind, b.kind, e.kind]);
  delete Object.prototype.kind;
  String.prototype.twice = function () { return this + this; };
  out.push([a.twice(), b.twice().length]);
  delete String.prototype.twice;
  try { a.length = 5; out.push("assigned"); } catch (err) { out.push(err.constructor.name); }
  try { Object.defineProperty(String.prototype, "length", { value: 9 }); out.push("redefined"); } catch (err) { out.push(err.constructor.name); }
  out.push([String.prototype.length, Object.getOwnPropertyDescriptor(Object(b), "length"), a.length]);
  const boxed = new String("abc");
  out.push([boxed.length, Object.keys(boxed), b.length, boxed.length]);
  let n = 0;
  for (const s of [a, b, c, e, a]) n += s.length * 10 + (s.length > 2 ? s.indexOf("l") : -1);
  out.push(n);
  try { null.length; } catch (err) { out.push(err.constructor.name); }
  try { undefined.length; } catch (err) { out.push(err.constructor.name); }
  out.push([(5).toFixed(1), true.toString(), [1, 2].length]);
  return JSON.stringify(out);
})();
