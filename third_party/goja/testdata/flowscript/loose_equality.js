// == between strings and numbers, booleans and BigInts, and strings with
// non-ASCII white space read as numbers (patch 107); the .node.txt beside
// it is Node's answer.
(() => {
  const strings = ['2', '2.0', '2.5', ' 2 ', '\t2\n', '2\u00a0', '\u20032', '\ufeff2', '02', '0x2', '0b10', '0o2', '2e0', '.2e1', '+2', '-2', '-0', '0', '', ' ', '\u00a0',
    'Infinity', '-Infinity', 'infinity', 'NaN', '2_0', '1n', '9007199254740993', '9007199254740992', '1e400', 'ção', '2\u0301', '1,5', '١', 'true', '1.0', '0.0'];
  const others = [2, 2.5, -2, 0, -0, 1, NaN, Infinity, -Infinity, 9007199254740992, true, false, 2n, 0n, 9007199254740993n, null, undefined, [2], {valueOf() { return 2 }}];
  const out = [];
  for (const s of strings) {
    out.push(JSON.stringify(s) + ': ' + others.map(o => (s == o ? 1 : 0) + '' + (o == s ? 1 : 0)).join(' ') + ' | ' +
      [Number(s), Math.abs(s), isNaN(s), isFinite(s), 'abcdef'.charAt(s), s * 1, s | 0, Math.round(s)].join(','));
  }
  return out.join('\n');
})()
