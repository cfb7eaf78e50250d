// Locale tags, well formed and not, through every built-in that reads a
// locales argument (patch 102); the .node.json beside it is Node's answer.
(() => {
  let seed = 102;
  const rand = n => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const pick = a => a[rand(a.length)];
  const pools = [
    ['en', 'pt', 'de', 'zh', 'tr', 'abc', 'abcde', 'abcdefgh', 'abcdefghi', 'a', 'abcd', 'EN', 'x', 'i', 'root', '1', ''],
    ['Latn', 'Hant', 'LATN', 'Lat', 'Latin'],
    ['US', 'BR', '419', '41', '4190', 'us', 'DEU'],
    ['posix', '1999', 'abcde', 'oxendict', '1ab', '12345678', '123456789', 'ab'],
    ['u', 't', 'x', 'a', 'b', 'U', 'X', '1'],
    ['ca', 'nu', 'co', 'c1', '1c', 'gregory', 'latn', 'phonebk', 'cal', 'a1', 'de', 'abc', 'abcdefgh', 'abcdefghi', 'g', ''],
  ];
  const tags = ['en-US-', 'en--US', 'en-US--', '-en', 'en_US', ' en', 'en ', 'ção', 'en-US-u-nu-latn', 'de-DE-u-co-phonebk',
    'en-t-en-GB', 'en-t-a1-abc', 'en-t-a1', 'en-x-a-b-c', 'en-x-u-ca-x', 'en-u-ca-u-nu', 'EN-a-BC-A-cd', 'art-lojban', 'zh-min-nan'];
  for (let i = 0; i < 1500; i++) {
    const parts = [pick(pools[0])];
    const n = rand(6);
    for (let j = 0; j < n; j++) parts.push(pick(pools[1 + rand(5)]));
    tags.push(parts.join('-'));
  }
  const tryIt = f => { try { f(); return 'ok' } catch (e) { return e.name + ': ' + e.message } };
  const out = [];
  for (const t of tags) {
    const r = [
      tryIt(() => (1234.5).toLocaleString(t)),
      tryIt(() => (1234.5).toLocaleString(['en-US', t])),
      tryIt(() => 'I'.toLocaleLowerCase(t)),
      tryIt(() => 'a'.localeCompare('b', [t])),
      tryIt(() => new Date(0).toLocaleDateString(t, { timeZone: 'UTC' })),
    ];
    out.push(JSON.stringify(t) + ' ' + (r.every(x => x === r[0]) ? r[0] : r.join(' | ')));
  }
  for (const v of [null, 5, [5], [null], {length: 1, 0: 'en_US'}, {length: 2, 1: 'en'}, [, 'en-US'], [{toString() { return 'de' }}]]) {
    out.push(tryIt(() => (1234.5).toLocaleString(v)) + ' / ' + tryIt(() => 'I'.toLocaleUpperCase(v)));
  }
  // The case mappings read a list only up to its first element, as V8 does.
  for (const v of [['tr', 'en_US'], ['tr', 5], [, 'tr', 'en_US'], {length: 1e9, 0: 'tr'}, ['en_US', 'tr'], [5], [], 'az', 'lt-u-ca-x']) {
    out.push(tryIt(() => 'i'.toLocaleUpperCase(v)) + ' => ' + (() => { try { return 'i'.toLocaleUpperCase(v) } catch (e) { return '-' } })());
  }
  return out.join('\n');
})()
