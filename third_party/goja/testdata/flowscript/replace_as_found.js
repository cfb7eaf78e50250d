// Global replaces and replaceAll with replacement strings ($ patterns, empty
// matches, sticky, ASCII, accented, decomposed and astral text), against
// Node (FlowScript patch 96): node -p "$(cat replace_as_found.js)" > replace_as_found.node.json
(() => {
const texts = ['', 'abc', 'aaa', 'Ação é ótima, João!', 'x😀y😀', 'one two  three', 'ç', 'ab\nab'];
const res = [];
const pats = [/a/g, /a*/g, /(a)(b)?/g, /(?<l>[a-z])/g, /\b/g, /$/gm, /^/gm, /ã?/g, /[\u0300-\u036f]/g, /o/gy, /a/gi, /./gu, /(?:)/g, /\s+/g, /é|ó/g];
const reps = ['', '-', '$&$&', '[$1|$2]', '$<l>!', '$$', "$`", "$'", '$0', '$9', '$<x>', '${', '$'];
for (const t of texts) {
  const n = t.normalize('NFD');
  for (const p of pats) for (const r of reps) {
    res.push(t.replace(p, r), n.replace(p, r));
  }
  for (const q of ['', 'a', 'ab', 'ã', 'a\u0303', '😀', ' ']) for (const r of reps) {
    res.push(t.replaceAll(q, r), n.replaceAll(q, r));
  }
}
const re = /a/g; re.lastIndex = 3; res.push('aaaa'.replace(re, 'b') + re.lastIndex);
const st = /a/gy; st.lastIndex = 2; res.push('aaba'.replace(st, 'c') + st.lastIndex);
return JSON.stringify(res);
})()
