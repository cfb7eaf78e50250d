(function () {
  // Loops whose body can match empty, on regexp2 (a lookahead sends a
  // pattern there): an iteration past the minimum that matches empty fails,
  // as ECMAScript's RepeatMatcher has it (regexp2 patch 4). Node's answers.
  const out = [];
  const cases = [[/(?:a*?)+/, 'aaa'], [/(?:,?\s*?)+/, ', , x'], [/(?:\d*|[a-z])+/g, 'a1b2'], [/(a*?)+/, 'aaa'],
    [/(?:a*)+b/, 'aaab'], [/(?:x?)*y/, 'xxy'], [/(?:a|)+/, 'aaa'], [/(?:a??)+/, 'aa'], [/(?:\s*,?\s*)+/, ' , ,x'],
    [/(?:(?:a*?)*?b)/, 'aab'], [/(?:a*?){2,}/, 'aaa'], [/(?:a*?|b)+c/, 'abac'], [/^(?:\w*?\s*?)+$/, 'hello world'],
    [/(?:[0-9]*?[.,]?)+/, '1.234,56'], [/(?:a*?)+?b/, 'aab'], [/(?:a*?)+?/, 'aaa'], [/(a*)*/, 'b'], [/(a*)+/, 'b'],
    [/(a*?)*?b/, 'aab'], [/(a|)*/, 'aa'], [/(a*){2,3}/, 'aaa'], [/(a*?){2,3}/, 'aaa'], [/(a*){2,3}?b/, 'aab'],
    [/(?:a{0,2}?){3,}/, 'aaaaa'], [/(\w*?\s?)+$/, 'hello big world'], [/((?:a|b)*?)+c/, 'ababc'], [/(?:(?=a)|b)+/, 'bab'],
    [/(?:\b)+/, 'ab'], [/(?:$)*/, 'x'], [/(?:^|,)+x/, ',,x'], [/(a?)*?b/, 'ab'], [/(a?){1,}?b/, 'ab'], [/(.*?)*x/, 'abx'],
    [/(?:x?)+/, ''], [/(x?)+y/, 'y'], [/(x*){1}y/, 'y'], [/(?:(x*)(y*))+$/, 'xyx'], [/(a*)?b/, 'b'], [/(?:a*?){0,1}b/, 'ab']];
  for (const [re0, s] of cases) {
    const re = new RegExp('(?=)' + re0.source, re0.flags);
    if (re.global) out.push(re + ' ' + JSON.stringify(s.replace(re, '<$&>')));
    else { const m = re.exec(s); out.push(re + ' ' + JSON.stringify(m && [...m].map(x => x === undefined ? 'U' : x))); }
  }
  return out.join('\n');
})()
