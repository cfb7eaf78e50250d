(function () {
  const out = [];
  const t = (name, f) => {
    try { out.push(name + ': ' + JSON.stringify(f())); } catch (e) { out.push(name + ': ' + e.name); }
  };
  const keys = o => Reflect.ownKeys(o).map(String);
  // Arrays: plain runs, holes, accessors, getters that change the array, iterator overrides.
  t('plain', () => [...[1, 2, 3], 4, ...[5]]);
  t('holes', () => { const a = [1, , 3]; const r = [...a]; return [r, 1 in r, r.length]; });
  t('trailing hole', () => { const a = [1, 2]; a.length = 4; return [...a].map(x => x === undefined); });
  t('proto element in hole', () => { Array.prototype[1] = 'P'; try { return [...[0, , 2]]; } finally { delete Array.prototype[1]; } });
  t('accessor element', () => { const a = [1, 2, 3]; Object.defineProperty(a, 1, { get() { a.push(9); return 'g'; } }); return [...a]; });
  t('grows while spread', () => { const a = [1, 2]; Object.defineProperty(a, 0, { get() { a.push(7); return 0; }, configurable: true }); return [...a]; });
  t('self spread', () => { let a = [1, 2]; a = [...a, ...a]; return a; });
  t('big', () => { let a = []; for (let i = 0; i < 3000; i++) a = [...a, i]; return [a.length, a[0], a[2999], a.reduce((x, y) => x + y, 0)]; });
  t('iterator overridden', () => { const a = [1, 2, 3]; a[Symbol.iterator] = function* () { yield 'x'; }; return [...a]; });
  t('next overridden', () => {
    const proto = Object.getPrototypeOf([][Symbol.iterator]());
    const next = proto.next;
    proto.next = function () { const r = next.call(this); if (!r.done) r.value = r.value * 10; return r; };
    try { return [...[1, 2]]; } finally { proto.next = next; }
  });
  t('typed array', () => [...new Uint8Array([1, 2, 3])]);
  t('string', () => [...'añ😀b']);
  t('set and map', () => [...new Set([1, 1, 2]), ...new Map([[1, 'a']])]);
  t('arguments', () => (function () { return [...arguments]; })(1, 2, 3));
  t('array subclass', () => { class A extends Array {} const a = A.from([1, 2]); return [...a]; });
  t('spread call', () => Math.max(...[1, 5, 3], ...[9]));
  t('throws mid way closes', () => {
    let closed = false;
    const it = { [Symbol.iterator]() { let i = 0; return { next() { i++; if (i > 3) throw new Error('boom'); return { value: i, done: false }; }, return() { closed = true; return {}; } }; } };
    try { [...it]; } catch (e) { return [e.message, closed]; }
  });
  t('array from set', () => Array.from(new Set(['a', 'b']), x => x + '!'));
  t('array from throws in mapper closes', () => {
    let closed = false;
    const it = { [Symbol.iterator]() { return { next() { return { value: 1, done: false }; }, return() { closed = true; return {}; } }; } };
    try { Array.from(it, () => { throw new TypeError('m'); }); } catch (e) { return [e.name, closed]; }
  });
  t('new Set from array', () => [...new Set([3, 1, 3, 2])]);
  // Objects: order, integer keys, overrides, accessors, symbols, non-enumerables, __proto__.
  t('order', () => keys({ b: 1, ...{ a: 1, 2: 'x', 1: 'y', c: 3 }, z: 1 }));
  t('override keeps place', () => { const o = { a: 1, b: 2, ...{ a: 9, c: 3 } }; return [keys(o), o.a]; });
  t('later wins', () => ({ ...{ a: 1 }, a: 2 }));
  t('getter on source', () => { const s = { a: 1, get b() { return this.a + 1; }, c: 3 }; return { ...s }; });
  t('getter adds keys', () => { const s = { a: 1, get b() { s.z = 26; delete s.c; return 2; }, c: 3 }; const o = { ...s }; return [keys(o), o]; });
  t('non-enumerable skipped', () => { const s = { a: 1 }; Object.defineProperty(s, 'h', { value: 2, enumerable: false }); return { ...s }; });
  t('symbols copied', () => { const k = Symbol('k'); const s = { a: 1, [k]: 2 }; const o = { ...s }; return [keys(o), o[k]]; });
  t('accessor on target replaced', () => { const o = { get a() { return 'getter'; }, ...{ a: 'data' } }; return [o.a, Object.getOwnPropertyDescriptor(o, 'a').writable]; });
  t('setter on target not called', () => { let called = false; const o = { set a(v) { called = true; }, ...{ a: 1 } }; return [called, o.a]; });
  t('proto setter not called', () => { let called = false; Object.defineProperty(Object.prototype, 'zz', { set(v) { called = true; }, configurable: true }); try { const o = { ...{ zz: 1 } }; return [called, Object.hasOwn(o, 'zz')]; } finally { delete Object.prototype.zz; } });
  t('__proto__ own key', () => { const s = JSON.parse('{"__proto__": {"x": 1}, "a": 2}'); const o = { ...s }; return [Object.getPrototypeOf(o) === Object.prototype, keys(o), o.x]; });
  t('frozen source', () => ({ ...Object.freeze({ a: 1, b: 2 }) }));
  t('non-writable source prop', () => { const s = {}; Object.defineProperty(s, 'a', { value: 1, enumerable: true }); const o = { ...s }; return [o, Object.getOwnPropertyDescriptor(o, 'a').writable]; });
  t('array into object', () => ({ ...['x', 'y'] }));
  t('string into object', () => ({ ...'hi' }));
  t('null and undefined', () => ({ ...null, ...undefined, a: 1 }));
  t('function source', () => { const f = function () {}; f.p = 1; return { ...f }; });
  t('class instance', () => { class C { constructor() { this.a = 1; } get g() { return 2; } } return { ...new C() }; });
  t('proxy source', () => ({ ...new Proxy({ a: 1 }, { ownKeys: () => ['b', 'a'], getOwnPropertyDescriptor: (t, k) => ({ value: k, enumerable: true, configurable: true }), get: (t, k) => k + '!' }) }));
  t('rest', () => { const { a, ...rest } = { a: 1, b: 2, 3: 'c', d: 4 }; return [a, keys(rest), rest]; });
  t('rest with getter', () => { const { a, ...rest } = { a: 1, get b() { return 'g'; } }; return rest; });
  t('reduce table', () => { const items = Array.from({ length: 500 }, (_, i) => ({ id: 'k' + (i % 300), v: i })); const m = items.reduce((acc, x) => ({ ...acc, [x.id]: x.v }), {}); return [Object.keys(m).length, m.k0, m.k299]; });
  t('integer keys table', () => { let m = {}; for (const i of [5, 3, 10, 1]) m = { ...m, [i]: i * 2, ['s' + i]: i }; return keys(m); });
  t('preventExtensions target via rest untouched', () => { const s = Object.preventExtensions({ a: 1 }); return { ...s }; });
  t('object with null proto', () => { const s = Object.create(null); s.a = 1; s.b = 2; return { ...s }; });
  t('spread own symbols order', () => { const s1 = Symbol('1'), s2 = Symbol('2'); const s = { [s2]: 2, a: 1, [s1]: 1 }; return Reflect.ownKeys({ ...s }).map(String); });
  // Object.assign: [[Set]] on the target, the source read as each step reaches it.
  t('assign order', () => Reflect.ownKeys(Object.assign({ z: 0 }, { b: 1, 2: 'x', a: 2, 1: 'y' })).map(String));
  t('assign target setter', () => { const log = []; const o = Object.assign({ set a(v) { log.push(v); } }, { a: 1, b: 2 }); return [log, Object.keys(o), o.b]; });
  t('assign setter deletes later key', () => { const s = { a: 1, b: 2, c: 3 }; const o = Object.assign({ set a(v) { delete s.b; s.d = 4; } }, s); return [Object.keys(o), o.c, 'd' in o]; });
  t('assign setter changes later value', () => { const s = { a: 1, b: 2 }; const o = Object.assign({ set a(v) { s.b = 'changed'; } }, s); return o.b; });
  t('assign proto setter', () => { let got; const proto = { set k(v) { got = v; } }; const o = Object.assign(Object.create(proto), { k: 5 }); return [got, Object.hasOwn(o, 'k')]; });
  t('assign proto non-writable', () => { const proto = Object.defineProperty({}, 'k', { value: 1, writable: false }); return Object.assign(Object.create(proto), { k: 5 }); });
  t('assign frozen target', () => Object.assign(Object.freeze({ a: 1 }), { a: 2 }));
  t('assign frozen target no keys', () => Object.assign(Object.freeze({ a: 1 }), {}));
  t('assign __proto__ key', () => { const o = Object.assign({}, JSON.parse('{"__proto__": {"x": 7}}')); return [o.x, Object.keys(o)]; });
  t('assign getter on source', () => Object.assign({}, { a: 1, get b() { return this.a + 1; } }));
  t('assign non-enumerable', () => Object.assign({}, Object.defineProperty({ a: 1 }, 'h', { value: 2 })));
  t('assign symbols', () => { const k = Symbol('k'); return Reflect.ownKeys(Object.assign({}, { a: 1, [k]: 2 })).map(String); });
  t('assign many sources', () => Object.assign({}, { a: 1 }, null, { b: 2 }, undefined, 'hi', [9]));
  t('assign to array', () => Object.assign([1, 2, 3], { 1: 'x', length: 2 }));
  t('assign self', () => { const o = { a: 1, b: 2 }; return Object.assign(o, o); });
  t('assign source is target proto', () => { const p = { a: 1 }; const o = Object.create(p); Object.assign(o, p); return [Object.hasOwn(o, 'a'), o.a]; });
  t('assign non-writable own', () => Object.assign(Object.defineProperty({}, 'a', { value: 1, enumerable: true }), { a: 2 }));
  t('assign in loop', () => { let o = {}; for (let i = 0; i < 300; i++) o = Object.assign({}, o, { ['k' + i]: i }); return [Object.keys(o).length, o.k0, o.k299]; });
  return out.join('\n');
})()
