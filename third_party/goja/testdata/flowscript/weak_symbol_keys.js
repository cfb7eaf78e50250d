(function () {
const out = [];
const t = (f) => { try { out.push(String(f())); } catch (e) { out.push(e.name + ': ' + e.message); } };
const s = Symbol('x'), r = Symbol.for('reg'), o = {};
const w = new WeakMap();
t(() => w.set(s, 1) === w);
t(() => [w.get(s), w.has(s), w.get(Symbol('x')), w.has(r)].join());
t(() => w.set(r, 1));
t(() => w.set(Symbol.iterator, 'it').get(Symbol.iterator));
t(() => w.set(1, 1));
t(() => w.set('a', 1));
t(() => w.set(null, 1));
t(() => [w.delete(s), w.delete(s), w.has(s), w.delete(r), w.delete(1)].join());
t(() => w.set(o, 2).get(o));
t(() => new WeakMap([[s, 'a'], [o, 'b']]).get(s));
t(() => new WeakMap([[r, 'a']]));
t(() => new WeakMap([[3, 'a']]));
const ws = new WeakSet();
t(() => ws.add(s) === ws);
t(() => [ws.has(s), ws.has(r), ws.has(Symbol('x'))].join());
t(() => ws.add(r));
t(() => ws.add(5));
t(() => [ws.delete(s), ws.has(s), ws.delete(s)].join());
t(() => new WeakSet([s, o]).has(s));
t(() => new WeakSet([r]));
t(() => new WeakSet([{}, 7]));
t(() => { class M extends WeakMap {} ; const m = new M([[s, 1]]); return m.get(s); });
return out.join('\n');
})()
