// Searches the FlowScript patch 11 sends to Go's regexp (and some it must
// not), over ASCII text, text with accents, and text with surrogates.
(function () {
  const out = [];
  const texts = [
    "Pedido #1234567 feito em 01/02/2024; ligar (11) 98765-4321, a@b.com e c.d@e.org. FIM",
    "Pedido #1234567 feito em 01/02/2024 por João; ligar (11) 98765-4321, ação@b.com e ç.d@é.org. Fim ß",
    "emoji 😀 Pedido #7654321 em 03/04/2025 😀, José ok",
    "café\ncafé\r\nCAFÉ\u2028olá ſ K k s",
    "",
    "aaa",
    "ábc",
    "a,b,,c",
    "á,b,,c,",
    "x1y22z333",
    "über 12 ölçü 34 ÿ",
    "a@b.c @x.y foo@ bar@baz.qux.@ z@z.z; Ana: 12, João: 7; 3/4 e 10/20 e 5/; item, ítem,, é@ê.com",
  ];
  const patterns = [
    /\d+/g, /\d*/g, /b*/g, /,*/g, /(?:)/g, /\b\w+\b/g, /\B\w/g, /^\w+/g, /^\w+/gm, /\w+$/gm, /$/gm, /^/gm,
    /[\w.+-]+@[\w-]+\.[\w.-]+/g, /(?:pedido|order)\s*#?\s*(\d{6,8})/gi, /\b(\d{2})\/(\d{2})\/(\d{4})\b/g,
    /\(?\d{2}\)?\s?9?\d{4}-?\d{4}/g, /[^a-zà-ú]+/g, /[^a-z]+/gi, /caf[eé]/gi, /s/gi, /k/gi, /\W+/gi, /[a-z]+/gi,
    /(?<word>[A-Za-zÀ-ÿ]+)/g, /(a)|(b)/g, /.$/gm, /./gs, /./g, /x?/g, /(?=\d)/g, /\d(?!\d)/g, /é|e/g,
    /[à-ú]/gi, /\s+/g, /\S+/g, /ó|é/gy, /\d/y, /\w/gy, /[😀]/gu, /./gu, /\p{L}+/gu, /\u00e9/gi, /[\x80-\uffff]/gi,
    /([\w.]+)@(\w+)\.(com|org)/g, /[\w.+-]+@[\w-]+\.[\w.-]+/gi, /[a-z]+ #\d+/gi, /\d+\/\d+/g, /[a-zé]+?,/g,
    /(\w+)(?<sep>[;,.:])\s*(\d+)?/g, /\S+@\S+/g, /\w+ \b\w/g, /[a-zà-ú]+:\s\d+/gi, /\d+\/(\d+)?x?\/?/g, /[^\s@]+@[^\s@]+/g,
  ];
  const show = (v) => (v === null ? null : Array.isArray(v) ? [...v].map((x) => (x === undefined ? "<u>" : x)) : v);
  for (const [ti, text] of texts.entries()) {
    for (const [pi, re0] of patterns.entries()) {
      const key = ti + ":" + pi;
      const row = [key];
      const re = () => new RegExp(re0.source, re0.flags);
      row.push(show(text.match(re())));
      row.push([...text.matchAll(new RegExp(re0.source, re0.flags.includes("g") ? re0.flags : re0.flags + "g"))].map((m) => [m.index, ...show(m), m.groups ? JSON.stringify(m.groups) : "-"]));
      row.push(text.replace(re(), "<$&>"));
      row.push(text.replace(re(), (...a) => "[" + a.slice(0, -2).filter((x) => typeof x !== "object").join("|") + "]"));
      row.push(show(text.split(re())));
      row.push(show(text.split(re(), 2)));
      // exec loop with lastIndex, as scripts write it
      const r = re();
      const seen = [];
      let m, n = 0;
      if (r.global || r.sticky) {
        while ((m = r.exec(text)) !== null && n++ < 200) {
          seen.push(m.index + ":" + m[0] + ":" + r.lastIndex);
          if (m[0] === "") r.lastIndex++;
        }
      } else {
        m = r.exec(text);
        seen.push(m && m.index + ":" + m[0]);
      }
      row.push(seen);
      // exec from chosen offsets, in and out of words and around accents
      const offs = [];
      for (const start of [1, 2, 5, 9, 17, 30, 41, 60, text.length - 1, text.length, text.length + 1]) {
        const g = new RegExp(re0.source, re0.flags.includes("g") || re0.flags.includes("y") ? re0.flags : re0.flags + "g");
        g.lastIndex = start;
        const x = g.exec(text);
        offs.push(x ? x.index + ":" + show(x).join("|") + ":" + g.lastIndex : "null:" + g.lastIndex);
        g.lastIndex = start;
        offs.push(g.test(text));
      }
      row.push(offs);
      out.push(row);
    }
  }
  return JSON.stringify(out);
})()
