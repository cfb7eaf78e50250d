(function () {
const words = ['olá', 'mundo', 'ação', 'café', 'número', '123', 'são', 'paulo', ',', '.', 'ſt', 'K', 'naïve', '😀', 'x😀y', 'résumé'];
const parts = [];
for (let i = 0; i < 3000; i++) parts.push(words[(i * 7) % words.length]);
const text = parts.join(' ') + ' fim';
const out = [];
const summary = (name, toks) => out.push(name + ':' + toks.length + ':' + toks.slice(0, 12).join('|') + ':' + toks.slice(-6).join('|'));
const rest = (re, pick) => {
	const toks = [];
	let s = text;
	while (s.length) {
		const m = re.exec(s);
		if (!m || m[0].length === 0) { toks.push('!' + s.length); break; }
		toks.push(pick(m));
		s = s.slice(m[0].length);
	}
	return toks;
};
const from = (re, pick) => {
	const toks = [];
	let pos = 0;
	while (pos < text.length) {
		const m = text.slice(pos).match(re);
		if (!m || m[0].length === 0) { toks.push('!' + pos); break; }
		toks.push(pick(m));
		pos += m[0].length;
	}
	return toks;
};
const g1 = (m) => m[1] + '@' + m.index;
summary('go-rest', rest(/^\s*(\S+)/, g1));
summary('go-from', from(/^\s*(\S+)/, g1));
summary('u-rest', rest(/^\s*([\p{L}\d]+|.)/u, g1));
summary('u-from', from(/^\s*([\p{L}\d]+|.)/u, g1));
summary('u-emoji', rest(/^\s*(\p{Extended_Pictographic}|[^\s]+?(?=\s|$))/u, g1));
summary('r2-rest', rest(/^\s*(\S+?)(?=\s|$)/, g1));
summary('r2-from', from(/^\s*(\S+?)(?=\s|$)/, g1));
summary('i-rest', rest(/^\s*([a-z]+|\S+)/i, g1));
summary('behind', rest(/^(?<![a-z])\s*(\S+)/, g1));
summary('named', rest(/^\s*(?<w>\S+)/u, (m) => m.groups.w.length));
// searches past the start of a slice: the index is the slice's
const idx = [];
let s = text;
for (let i = 0; i < 400 && s.length > 300; i++) {
	const re = /ç|ã|😀|K/gu;
	re.lastIndex = s.indexOf(" ") + 1;
	const m = re.exec(s);
	const n = /ſt|naïve/.exec(s);
	const y = /\s/y; y.lastIndex = s.indexOf(' ');
	idx.push((m ? m.index + m[0] : '-') + (n ? n.index : '-') + y.test(s));
	s = s.slice(7 + (i % 5));
}
out.push(idx.slice(0, 20).join(',') + '/' + idx.slice(-5).join(',') + '/' + idx.length);
out.push(text.slice(100).split(/\s+/u).length, text.slice(2000).replace(/ç/g, 'c').length, [...text.slice(500).matchAll(/(é|ã)\p{L}/gu)].length);
return out.join('\n');
})()
