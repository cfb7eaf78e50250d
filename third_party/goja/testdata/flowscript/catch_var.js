(function () {
  const out = [];
  const t = (name, f) => { try { out.push(name + ': ' + JSON.stringify(f())); } catch (e) { out.push(name + ': ' + e.name); } };
  t('typeof after', () => { function a() { try { throw 1; } catch (e) { var e = 2; } return typeof e; } return a(); });
  t('read inside', () => { function b() { try { throw 1; } catch (e) { var e = 2; return e; } } return b(); });
  t('both', () => { function c() { var r; try { throw 1; } catch (e) { var e = 2; r = e; } return [r, e]; } return c(); });
  t('no initializer', () => { function d() { try { throw 1; } catch (e) { var e; return e; } } return d(); });
  t('nested block', () => { function f() { try { throw 1; } catch (e) { { var e = 3; } return e; } } return f(); });
  t('closure', () => { function g() { var fns = []; try { throw 'x'; } catch (e) { var e = e + '!'; fns.push(() => e); } return [fns[0](), typeof e]; } return g(); });
  t('for in', () => { function h() { try { throw 1; } catch (e) { for (var e in { k: 1 }) {} return e; } } return h(); });
  t('for', () => { function i() { try { throw 1; } catch (e) { for (var e = 5; e < 6; e++) {} return e; } } return i(); });
  t('outer var too', () => { function j() { var e = 'outer'; try { throw 1; } catch (e) { var e = 'inner'; } return e; } return j(); });
  t('nested catch', () => { function k() { try { throw 1; } catch (e) { try { throw 2; } catch (e) { var e = 3; } return e; } } return k(); });
  return out.join('\n');
})()
