(function () {
  const out = [];
  for (const gap of ['→', 'é ', '\u{1F600}', '0123456789abc', 'ááááááááááá', '\u{1F600}'.repeat(6), '\t', '', 3, 12, -1, new String('¦'), new Number(2)]) {
    const s = JSON.stringify({a: [1, {b: 'ç'}], c: {}}, null, gap);
    out.push(JSON.stringify(gap) + ' ' + s.length + ' ' + JSON.stringify(s) + ' ' + (s === JSON.parse(JSON.stringify(s))));
  }
  return out.join('\n');
})()
