(function () {
  const out = [];
  const t = (name, f) => {
    try { out.push(name + ': ' + JSON.stringify(f())); } catch (e) { out.push(name + ': ' + e.name + ': ' + e.message); }
  };
  t('call', () => { function f() { return (() => arguments[0])(); } return f('x'); });
  t('map', () => { function f() { return [1, 2].map(() => arguments[0]); } return f('y'); });
  t('wrapper', () => { function w(fn) { return function () { return (() => fn.apply(this, arguments))(); }; } return w(x => x + 1)(1); });
  t('own param beside', () => { function f() { return (x => arguments[0] + x)('!'); } return f('p'); });
  t('spread', () => { function f() { return (() => [...arguments])(); } return f(1, 2); });
  t('length', () => { function f() { return (() => arguments.length)(); } return [f(), f(1), f(1, 2, 3)]; });
  t('escapes', () => { function f() { return () => arguments[0]; } const g = f('late'); return g('ignored'); });
  t('nested arrows', () => { function f() { return (() => () => () => arguments[1])()()(); } return f('a', 'b'); });
  t('outer reads too', () => { function f() { const n = arguments.length; return (() => [n, arguments[0]])(); } return f('both'); });
  t('mapped write through arrow', () => { function f(a) { (() => { arguments[0] = 'z'; })(); return a; } return f('a'); });
  t('mapped param write seen by arrow', () => { function f(a) { a = 'changed'; return (() => arguments[0])(); } return f('a'); });
  t('strict unmapped', () => { function f(a) { 'use strict'; (() => { arguments[0] = 'z'; })(); return [a, (() => arguments[0])()]; } return f('a'); });
  t('method', () => ({ m() { return (() => arguments[0])(); } }).m('meth'));
  t('class method', () => { class C { m() { return (() => Array.from(arguments))(); } } return new C().m(1, 2); });
  t('getter', () => { const o = { get g() { return (() => arguments.length)(); } }; return o.g; });
  t('constructor', () => { function C() { this.v = (() => arguments[0])(); } return new C('ctor').v; });
  t('generator', () => { function* g() { yield (() => arguments[0])(); yield (() => arguments[1])(); } return [...g('g0', 'g1')]; });
  t('default param', () => { function f(a, b = () => arguments[0]) { return b(); } return f('dflt'); });
  t('default param mixed', () => { function f(a, b = () => arguments.length) { return [b(), arguments.length]; } return f(1); });
  t('param named arguments', () => { function f(arguments) { return (() => arguments)(); } return f('param'); });
  t('var arguments', () => { function f() { var arguments = 'var'; return (() => arguments)(); } return f('x'); });
  t('let arguments in arrow', () => { function f() { return (() => { let arguments = 'inner'; return arguments; })(); } return f('x'); });
  t('arrow param arguments', () => { function f() { return (arguments => arguments)(5); } return f('x'); });
  t('loop closures', () => { function f() { const fns = []; for (let i = 0; i < 3; i++) fns.push(() => arguments[i]); return fns.map(g => g()); } return f('a', 'b', 'c'); });
  t('recursion', () => { function f(n) { return n === 0 ? 0 : (() => arguments[0] + f(n - 1))(); } return f(5); });
  t('many locals', () => { function f() { let a = 1, b = 2, c = 3, d = 4, e = 5, g = 6, h = 7, i = 8, j = 9, k = 10, l = 11, m = 12, n = 13; return (() => [arguments[0], a + b + c + d + e + g + h + i + j + k + l + m + n])(); } return f('many'); });
  t('typeof in arrow', () => { function f() { return (() => typeof arguments)(); } return f(); });
  t('arguments object identity', () => { function f() { const a = arguments; return (() => arguments === a)(); } return f(); });
  t('arrow in try catch', () => { function f() { try { throw 1; } catch (e) { return (() => [e, arguments[0]])(); } } return f('tc'); });
  t('arrow in block with let', () => { function f() { { let q = 'q'; return (() => q + arguments[0])(); } } return f('!'); });
  t('callee non-strict', () => { function f() { return (() => arguments.callee === f)(); } return f(); });
  t('callee strict', () => { function f() { 'use strict'; return (() => arguments.callee)(); } return f(); });
  t('class field arrow', () => { try { return eval('1'); } catch (e) { return 'no eval'; } });
  return out.join('\n');
})()
