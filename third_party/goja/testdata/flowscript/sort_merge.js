(function () {
  // Array.prototype.sort and toSorted with a merge sort and, without a
  // comparator, each primitive's string made once (patch 128). Node's
  // answers.
  const out = [];
  const put = (name, v) => out.push(name + ' ' + JSON.stringify(v, (k, x) => x === undefined ? 'U' : typeof x === 'bigint' ? x + 'n' : x));
  let seed = 7;
  const rnd = (n) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  // Stability: equal keys keep their order, ascending and descending,
  // at sizes around the insertion runs and the merges.
  for (const n of [0, 1, 2, 3, 7, 8, 9, 16, 17, 33, 100, 257, 1000]) {
    const items = Array.from({ length: n }, (_, i) => ({ k: rnd(5), i }));
    const asc = items.slice().sort((a, b) => a.k - b.k).map(o => o.k * 10000 + o.i);
    const desc = items.slice().sort((a, b) => (a.k - b.k) * -1).map(o => o.k * 10000 + o.i);
    const byStr = items.slice().sort((a, b) => String(a.k).localeCompare(String(b.k))).map(o => o.i);
    put('stable ' + n, [asc.join(), desc.join(), byStr.join()]);
  }
  // A comparator's -0, NaN, strings, booleans and objects with valueOf.
  put('neg zero', [[1, 2, 3].sort(() => -0), [3, 2, 1].sort((a, b) => (a - b) * 0), [2, 1].sort((a, b) => a > b ? 0 : -0)]);
  put('NaN', [[3, 1, 2].sort(() => NaN), [3, 1, 2].sort(() => undefined)]);
  put('coerced', [[3, 1, 2].sort((a, b) => String(a - b)), [3, 1, 2].sort((a, b) => a > b),
    [3, 1, 2].sort((a, b) => ({ valueOf: () => a - b }))]);
  // Undefineds and holes go last; holes stay holes after sort, undefined after toSorted.
  const holey = [3, undefined, , 1, , undefined, 2];
  put('holes', [holey.slice().sort(), holey.slice().sort((a, b) => b - a), holey.slice().sort().length,
    Object.keys(holey.slice().sort()), holey.toSorted(), Object.keys(holey.toSorted())]);
  // Array-likes.
  const like = { length: 5, 0: 'c', 1: 'a', 3: 'b', 4: undefined, 7: 'z' };
  Array.prototype.sort.call(like);
  put('array-like', like);
  put('array-like toSorted', Array.prototype.toSorted.call({ length: 3, 0: 2, 2: 1 }));
  // The default order: strings of primitives, UTF-16 code units.
  put('default', [[10, 9, 1, 100, -1, -10, 1.5, 0, -0].sort().map(String),
    ['b', 'a', 'B', 'é', 'e', '😀', '\uffff', 'aa', ''].sort(),
    [true, false, null, 'null', 'true', 2, 10, 1n, 20n, NaN, Infinity, -Infinity].sort()]);
  put('default big', (() => { const a = Array.from({ length: 5000 }, () => rnd(100000)); a.sort(); return [a.slice(0, 20), a.slice(-5), a.every((x, i) => i === 0 || String(a[i - 1]) <= String(x))]; })());
  // Past the keyed sort's length: integers compared by their digits, others by their strings.
  put('default long', (() => {
    const a = Array.from({ length: 70000 }, (_, i) => i % 7 === 0 ? -rnd(100000) : i % 11 === 0 ? rnd(1000) / 8 : rnd(1000000));
    a.push(undefined, -0, 0, 'x', 1e21, -1e-7, NaN, true);
    a.sort();
    return [a.slice(0, 30), a.slice(-12), a.length];
  })());
  // Objects' toString runs (with its side effects); a symbol throws when compared.
  let calls = 0;
  const objs = [3, 1, 2].map(v => ({ toString() { calls++; return String(v); } }));
  objs.sort();
  put('objects', [objs.map(String), calls > 0]);
  put('one symbol', [Symbol('x')].sort().length);
  try { [Symbol('a'), Symbol('b')].sort(); put('symbols', 'no error'); } catch (e) { put('symbols', e.name); }
  try { [1, Symbol('b')].sort(); put('mixed symbol', 'no error'); } catch (e) { put('mixed symbol', e.name); }
  // A comparator that throws leaves the array as it was.
  const keep = [5, 4, 3, 2, 1, 9, 8, 7, 6, 0, 11, 10];
  let n = 0;
  try { keep.sort((a, b) => { if (++n === 20) throw new Error('stop'); return a - b; }); } catch (e) { put('throw', [e.message, keep]); }
  // A comparator that changes the array: the sorted list is written back.
  const mut = [3, 1, 2, 5, 4, 9, 8, 7, 6, 0];
  mut.sort((a, b) => { mut.length = 3; return a - b; });
  put('mutating', [mut.length, mut.slice().sort((a, b) => a - b)]);
  const grow = [3, 1, 2];
  grow.sort((a, b) => { grow.push(0); return a - b; });
  put('growing', [grow.slice(0, 3), grow.length > 3]);
  // A sorted, a reversed and an all-equal list, and the calls they take.
  for (const [name, a] of [['sorted', Array.from({ length: 1000 }, (_, i) => i)], ['reversed', Array.from({ length: 1000 }, (_, i) => 1000 - i)],
    ['equal', Array(1000).fill(1)]]) {
    let c = 0;
    const s = a.slice().sort((x, y) => { c++; return x - y; });
    put(name, [s.slice(0, 5), s.slice(-3), c <= 1000 * 10]);
  }
  // Bound functions, Proxies and natives as comparators.
  const cmp = function (a, b) { return this.dir * (a - b); };
  put('bound', [5, 1, 4].sort(cmp.bind({ dir: -1 })));
  const seen = [];
  const proxy = new Proxy((a, b) => a - b, { apply(t, self, args) { seen.push(args); return t(...args); } });
  const sortedByProxy = [5, 1, 4, 2, 3].sort(proxy);
  put('proxy', [sortedByProxy, seen.every(a => Array.isArray(a) && a.length === 2 && a[0] !== a[1])]);
  put('method', [3, 1, 2].sort({ m(a, b) { return b - a; } }.m));
  try { [2, 1].sort(class {}); } catch (e) { put('class', e.name); }
  try { [2, 1].sort(null); } catch (e) { put('null', e.name); }
  try { [2, 1].sort({}); } catch (e) { put('object', e.name); }
  // Nested sorts in a comparator.
  put('nested', [[3, 1, 2].sort((a, b) => { [9, 8, 7].sort((x, y) => x - y); return a - b; })]);
  // Strings by localeCompare, and numbers by a field.
  const names = ['Óscar', 'ana', 'Ana', 'álvaro', 'Bruno', 'bruno', 'Zé', 'élio'];
  put('locale', [names.slice().sort((a, b) => a.localeCompare(b)), names.slice().sort((a, b) => a.localeCompare(b, 'pt', { sensitivity: 'base' }))]);
  return out.join('\n');
})()
