(function(){
const out = [];
out.push(['S\uFFFDo Paulo', 'Santos', 'Salvador', 'S\uD83Do', 'Sz'].sort((a, b) => a.localeCompare(b)));
const others = ['a', 'Z', '0', '9', '\u4E2D', '\u{1F600}', '\u2605', '$', '\u00E9', '\uFFFC', '\u{30000}'];
for (const s of ['\uFFFD', '\uD83D', '\uDE00', 'a\uFFFD', '\uFFFDb']) out.push(others.map(o => s.localeCompare(o)).join(''));
out.push(['\uFFFD', '\uFFFD'].map((s, i) => s.localeCompare('\uFFFD')).join());
out.push(['x\uFFFD1', 'x\uFFFD10', 'x\uFFFD2'].sort((a, b) => a.localeCompare(b, 'pt-BR', {numeric: true})));
out.push(['\uFFFDa', '\uFFFDA', '\uFFFDb'].sort((a, b) => a.localeCompare(b, undefined, {sensitivity: 'base'})));
out.push('\uFFFDa'.localeCompare('\uFFFDA', undefined, {sensitivity: 'base'}));
return JSON.stringify(out);
})()
