// Replacer functions called as each match is found (patch 103) see what
// they saw when every match was collected first; the .node.txt beside it
// is Node's answer.
(() => {
  const out = [];
  const t = (name, f) => { try { out.push(name + ': ' + JSON.stringify(f())) } catch (e) { out.push(name + ': ' + e.name + ': ' + e.message) } };
  const texts = ['a1b22c333', 'João e Zoë, ção', '', 'xx', 'ab\ud800cd', 'línea\nnueva\r\nfin', 'aaa', 'Olá 😀 mundo 1 😀😀 2', '😀'];
  const patterns = [/\d+/g, /\w/g, /(\w)(\d)?/g, /(?<l>[a-z])(?<d>\d*)/g, /x*/g, /ã?/giu, /[^a-z]/gi, /\b/g, /$/gm, /^/gm, /./gsu, /(a)|(b)/g, /a/gy, /\p{L}+/gu];
  for (const s of texts) for (const re of patterns) {
    t(re + ' on ' + JSON.stringify(s), () => { const calls = []; const r = s.replace(re, (...a) => { calls.push(a.map(x => typeof x === 'object' && x ? JSON.stringify(x) : String(x)).join('|')); return '<' + a[0] + '>' }); return [r, calls, re.lastIndex] });
    t('all ' + re + ' on ' + JSON.stringify(s), () => s.replaceAll(re, m => m.toUpperCase() + '.'));
  }
  for (const s of texts) for (const search of ['a', '', 'ç', 'x', '\ud800']) {
    t('all ' + JSON.stringify(search) + ' in ' + JSON.stringify(s), () => { const pos = []; return [s.replaceAll(search, (m, p, str) => { pos.push(p, str === s); return '[' + m + ']' }), pos] });
  }
  const re = /\w/g;
  t('lastIndex seen', () => { const seen = []; const r = 'abc'.replace(re, m => { seen.push(re.lastIndex); re.lastIndex = 7; return m + m }); return [r, seen, re.lastIndex] });
  t('lastIndex after', () => { re.lastIndex = 5; const r = 'abc'.replace(re, m => m); return [r, re.lastIndex] });
  t('same regex inside', () => { const r = /\d/g; return '1a2b3'.replace(r, d => 'x9y8'.replace(r, e => e * 2) + d) });
  t('compiled inside', () => { const r = /a/g; return ['aXaXa'.replace(r, m => { r.compile('X', 'g'); return 'b' }), String(r), r.lastIndex] });
  t('throws on the third', () => { let n = 0; const r = /\w/g; try { 'abcdef'.replace(r, m => { if (++n === 3) throw new Error('stop ' + m); return m }) } catch (e) { return [e.message, n, r.lastIndex] } });
  t('all throws on the second', () => { let n = 0; try { 'a-a-a'.replaceAll('a', () => { if (++n === 2) throw 'no'; return 'b' }) } catch (e) { return [e, n] } });
  t('returns objects', () => 'a-b'.replace(/\w/g, m => ({ toString() { return m + '!' } })));
  t('returns undefined', () => 'a-b'.replace(/\w/g, () => {}));
  t('string replacer of a global', () => 'a-b-c'.replace(/(\w)/g, '[$1$&$`]'));
  t('nested replaceAll', () => 'ab,ab'.replaceAll('ab', m => m.replaceAll('b', 'B') + 'ab'.replaceAll('a', '_')));
  t('frozen lastIndex', () => { const r = /a/g; Object.defineProperty(r, 'lastIndex', { writable: false }); let n = 0; try { 'aaa'.replace(r, () => { n++; return 'b' }) } catch (e) { return [e.name, n] } });
  t('big with an emoji', () => { const s = 'palavra '.repeat(2000) + '😀'; let n = 0; return s.replace(/(\w)(\w*)/g, (w, a, b) => (n++, a.toUpperCase() + b)).length + n });
  t('lookbehind, emoji', () => 'a😀b😀'.replace(/(?<=a)😀/g, m => '[' + m + ']') + 'x😀y'.replace(/(?:)/g, () => '-') + 'x😀y'.replace(/(?:)/gu, () => '-'));
  t('big', () => { const s = 'palavra '.repeat(2000); let n = 0; return s.replace(/\w+/g, w => (n++, w[0].toUpperCase() + w.slice(1))).length + n });
  return out.join('\n');
})()
