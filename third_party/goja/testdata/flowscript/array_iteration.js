(function () {
  const out = [];
  const log = [];
  let sum = 0;
  for (const x of [1, 2, 3]) sum += x;
  out.push(sum);
  const holes = [1, , 3];
  Array.prototype[1] = "p";
  const seen = [];
  for (const x of holes) seen.push(x);
  delete Array.prototype[1];
  out.push(seen.join());
  const acc = [1, 2, 3];
  Object.defineProperty(acc, 1, { get() { log.push("get"); return 20; } });
  const accSeen = [];
  for (const x of acc) accSeen.push(x);
  out.push(accSeen.join(), log.join());
  const grow = [1, 2];
  const grown = [];
  for (const x of grow) { grown.push(x); if (grow.length < 5) grow.push(x * 10); }
  out.push(grown.join());
  const shrink = [1, 2, 3, 4];
  const shrunk = [];
  for (const x of shrink) { shrunk.push(x); shrink.length = 2; }
  out.push(shrunk.join());
  const [d1, d2, ...rest] = [1, 2, 3, 4];
  out.push(d1 + d2 + rest.length);
  const sparse = [1, 2, 3];
  const sparseSeen = [];
  for (const x of sparse) { sparseSeen.push(x); if (sparseSeen.length === 1) sparse[100000] = "far"; if (sparseSeen.length > 4) break; }
  out.push(sparseSeen.join());
  const own = [1, 2];
  own[Symbol.iterator] = function* () { yield "own"; };
  for (const x of own) out.push(x);
  (function () { const a = []; for (const x of arguments) a.push(x); out.push(a.join()); })(7, 8);
  const typed = []; for (const x of new Uint8Array([5, 6])) typed.push(x); out.push(typed.join());
  const it = [][Symbol.iterator]();
  const proto = Object.getPrototypeOf(it);
  const orig = proto.next;
  const created = [1, 2][Symbol.iterator]();
  proto.next = function () { log.push("next"); return orig.call(this); };
  const viaNext = [];
  for (const x of [1, 2]) viaNext.push(x);
  out.push(viaNext.join(), log.filter((l) => l === "next").length);
  proto.next = orig;
  out.push(created.next().value);
  Object.prototype.return = function () { log.push("return"); return {}; };
  for (const x of [1, 2]) break;
  delete Object.prototype.return;
  out.push(log.join());
  const entries = []; for (const [i, v] of ["a", "b"].entries()) entries.push(i + v); out.push(entries.join());
  const keys = []; for (const k of ["a", "b"].keys()) keys.push(k); out.push(keys.join());
  let threw = "";
  const bad = [1, 2];
  Object.defineProperty(bad, 1, { get() { throw new Error("boom"); } });
  try { for (const x of bad) {} } catch (e) { threw = e.message; }
  out.push(threw);
  return JSON.stringify(out);
})()
