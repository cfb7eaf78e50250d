// Unicode property escapes with a property name (gc=, General_Category=,
// sc=, Script=) and ASCII and Any, and names V8 refuses; the .node.txt
// beside it is Node's answer.
(() => {
  const props = ['L', 'gc=L', 'gc=Lu', 'gc=Letter', 'General_Category=Uppercase_Letter', 'General_Category=Decimal_Number', 'gc=Nd',
    'gc=P', 'gc=Punctuation', 'gc=Sc', 'gc=Zs', 'sc=Greek', 'sc=Latin', 'Script=Cyrillic', 'Script=Han', 'Script=Arabic', 'sc=Common',
    'ASCII', 'Any', 'gc=letter', 'gc=Foo', 'sc=Foo', 'sc=latin', 'Script=Latin_Extended', 'General_Category', 'gc', 'gc=', 'Latin', 'Greek'];
  const text = 'Ação Σίσυφος Привет 中文 مرحبا 123 ٣ $€ ,.!? \u00a0x';
  const out = [];
  for (const p of props) {
    for (const [flags, neg] of [['u', 'p'], ['gu', 'P'], ['giu', 'p']]) {
      try {
        const re = new RegExp('\\' + neg + '{' + p + '}+', flags);
        out.push(p + ' /' + flags + ' ' + neg + ': ' + JSON.stringify(flags.includes('g') ? text.match(re) : re.exec(text)?.[0]));
      } catch (e) {
        out.push(p + ' /' + flags + ' ' + neg + ': ' + e.name);
      }
    }
  }
  return out.join('\n');
})()
