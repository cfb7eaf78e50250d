(function () {
  // On regexp2 (a lookaround or a backreference sends a pattern there), a
  // match may start on an optional part before a negated character:
  // (?<=Nome: )A?[^\n]+ finds "Ana Souza" (regexp2 patch 5). Node's answers.
  const out = [];
  const show = (m) => JSON.stringify(m && [m.index, ...m].map(x => x === undefined ? 'U' : x));
  const starts = ['a?', 'a*', 'a??', '(?:a|)', '(?:a|b)?', '[a-c]?', '[a-c]*?', '\\d*', ' ?', 'ab?', '(?:ab)?'];
  const negated = ['[^b]', '[^\\n]+', '[^ ]*x', '[^)]', '[^a]', '.'];
  const fronts = ['(?=.)', '(?!z)', '(?<=^|\\W)', '()'];
  const texts = ['ac', 'abc', 'a b)', '00a1', ' x', 'bbx', 'ca', 'a\nb', 'aab'];
  for (const f of fronts) {
    for (const s of starts) {
      for (const n of negated) {
        for (const flags of ['', 'm', 'u', 'i']) {
          const re = new RegExp(f + s + n + (f === '()' ? '\\1' : ''), flags);
          out.push(re + ' ' + texts.map(t => show(re.exec(t))).join(' '));
        }
      }
    }
  }
  const labels = 'Nome: Ana Souza\nCPF: 123.456.789-09\nPedido #000123 (urgente)\nR$ 5,00';
  for (const re of [/(?<=Nome: )A?[^\n]+/, /(?<=Nome:) *[^\n]+/, /(?<=#)0*[^ ]+/, /(?<=CPF:)\s?[^\n]+/m,
    /(?<=R\$) ?[^ ]/, /(?<=\()u?[^)]+/, /(?<=: )[A-Z]?[^\n]*/g, /(?<=^\w+: ?)\d?[^\n]+/gm]) {
    out.push(re + ' ' + JSON.stringify(labels.match(re)) + ' ' + JSON.stringify(labels.replace(re, '<$&>')) + ' ' +
      JSON.stringify(labels.split(re)));
  }
  for (const re of [/(?=.)a?[^b]/g, /(?=.)a?[^b]/y, /(?<=x)y?[^y]/g]) {
    out.push(re + ' ' + JSON.stringify([...'acabyxyyxz'.matchAll(new RegExp(re.source, 'g'))].map(m => [m.index, m[0]])) +
      ' ' + JSON.stringify('acabyxyyxz'.replace(re, '<$&>')));
  }
  return out.join('\n');
})()
