// Steps of the built-in iterators (Set, Map, RegExp String, String, Array)
// taken by spread, for-of, destructuring, Array.from and the collection
// constructors: values, order, mutation while iterating, a changed next
// (before and during the iteration), a RegExp subclass's exec, and
// throws. The FlowScript patch takes these steps without result objects
// when next is the standard one; the output must be upstream's.
(function () {
  const out = [];
  const log = (label, v) => out.push(label + "=" + JSON.stringify(v));
  const text = "pedido 123456, order #7654321; pedido 555555 ção 😀 fim";

  // plain iteration of each kind
  const s = new Set([3, 1, 3, "x", NaN, NaN, -0]);
  log("set spread", [...s].map(String));
  log("set entries", [...s.entries()].map(String));
  log("set keys", Array.from(s.keys()).map(String));
  const m = new Map([["a", 1], ["b", undefined], ["c", null]]);
  log("map spread", [...m]);
  log("map keys", [...m.keys()]);
  log("map values", [...m.values()].map(String));
  const [first, , third] = m.values();
  log("map destructure", [first, third]);
  log("matchAll", [...text.matchAll(/(?:pedido|order)\s*#?\s*(\d{6,8})/gi)].map((x) => [x[0], x[1], x.index]));
  log("matchAll empty", [...("abc".matchAll(/x*/g))].map((x) => x.index));
  log("matchAll unicode empty", [...("a😀b".matchAll(/(?:)/gu))].map((x) => x.index));
  log("string spread", [..."a😀ç\uD800b"].map((c) => c.length));
  const fromEntries = Object.fromEntries(new Map([["k", 1], ["j", 2]]));
  log("fromEntries", fromEntries);
  log("set of map keys", [...new Set(m.keys())]);
  log("map of set entries", [...new Map(s.entries())].map(String));
  let joined = "";
  for (const ch of "h😀i") joined += "[" + ch + "]";
  log("for-of string", joined);
  const arr = [1, , 3];
  log("array spread hole", [...arr]);

  // mutation while iterating
  const grow = new Set([1, 2]);
  const seen = [];
  for (const v of grow) {
    seen.push(v);
    if (v < 5) grow.add(v + 2);
    if (v === 2) grow.delete(1);
  }
  log("set grows", seen);
  const shrink = new Map([[1, "a"], [2, "b"], [3, "c"]]);
  const seenM = [];
  for (const [k, v] of shrink) {
    seenM.push(k + v);
    shrink.delete(k + 1);
  }
  log("map shrinks", seenM);
  const it = new Set([1, 2, 3]).values();
  it.next();
  log("resumed by hand", [...it]);
  log("after spread", JSON.stringify(it.next()));
  const it2 = [10, 20, 30][Symbol.iterator]();
  for (const v of it2) {
    log("array iter by hand", [v, it2.next()]);
  }

  // a changed next: used when changed before, ignored when changed during
  const setIterProto = Object.getPrototypeOf(new Set().values());
  const stdNext = setIterProto.next;
  let calls = 0;
  setIterProto.next = function () {
    calls++;
    return stdNext.call(this);
  };
  log("changed next", [[...new Set([7, 8])], calls]);
  setIterProto.next = stdNext;
  calls = 0;
  const during = [];
  for (const v of new Set([1, 2, 3])) {
    during.push(v);
    setIterProto.next = function () {
      calls++;
      return { done: true };
    };
  }
  setIterProto.next = stdNext;
  log("changed during", [during, calls]);
  const own = new Set([4, 5]).values();
  own.next = function () {
    return { value: "own", done: calls++ > 10 };
  };
  log("own next", [...own].length);

  const mapIterProto = Object.getPrototypeOf(new Map().keys());
  const stdMapNext = mapIterProto.next;
  mapIterProto.next = function () {
    const r = stdMapNext.call(this);
    if (!r.done) r.value = [r.value, "wrapped"];
    return r;
  };
  log("changed map next", [...new Map([[1, 2]]).keys()]);
  mapIterProto.next = stdMapNext;

  const strIterProto = Object.getPrototypeOf(""[Symbol.iterator]());
  const stdStrNext = strIterProto.next;
  strIterProto.next = function () {
    const r = stdStrNext.call(this);
    if (!r.done) r.value = r.value.toUpperCase();
    return r;
  };
  log("changed string next", [..."ab"]);
  strIterProto.next = stdStrNext;

  const rxIterProto = Object.getPrototypeOf("a".matchAll(/a/g));
  const stdRxNext = rxIterProto.next;
  rxIterProto.next = function () {
    const r = stdRxNext.call(this);
    if (!r.done) r.value = r.value[0] + "!";
    return r;
  };
  log("changed matchAll next", [..."aba".matchAll(/a/g)]);
  rxIterProto.next = stdRxNext;

  // a RegExp subclass's exec runs, and its throw ends the iteration
  class Counting extends RegExp {
    exec(str) {
      calls++;
      if (calls > 2) throw new Error("exec " + calls);
      return super.exec(str);
    }
  }
  calls = 0;
  const rx = new Counting("a", "g");
  const caught = [];
  try {
    for (const x of "aaaa".matchAll(rx)) caught.push(x.index);
  } catch (e) {
    caught.push(e.message);
  }
  log("subclass exec", [caught, calls]);
  calls = 0;
  try {
    log("subclass spread", [..."aa".matchAll(new Counting("a", "g"))].map((x) => x.index));
  } catch (e) {
    log("subclass spread threw", e.message);
  }

  // a throw in the loop body closes nothing (these iterators have no return)
  const partial = [];
  try {
    for (const v of new Set([1, 2, 3])) {
      partial.push(v);
      if (v === 2) throw new Error("body");
    }
  } catch (e) {
    partial.push(e.message);
  }
  log("body throw", partial);
  const sIt = new Map([[1, 1], [2, 2]]).entries();
  for (const e of sIt) {
    break;
  }
  log("after break", JSON.stringify(sIt.next()));
  const [a1] = "😀x";
  log("destructure string", a1.length);
  const [x1, ...rest] = new Set(["p", "q", "r"]);
  log("destructure rest", [x1, rest]);
  return out.join("\n");
})();
