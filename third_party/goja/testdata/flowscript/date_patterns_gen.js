// Writes flowscript_datepatterns.go (FlowScript patch 90) from Node's ICU:
//
//	node testdata/flowscript/date_patterns_gen.js > flowscript_datepatterns.go && gofmt -w flowscript_datepatterns.go
//
// For each locale of dateLocales, the pattern of every set of date fields
// (weekday; year; month, as a number or a name; day), of time fields (hour,
// minute, second; hour12 or an hourCycle) and of dateStyle with timeStyle
// (medium or short), read from formatToParts of two dates: the first names
// the fields, the second (single-digit values) shows which are padded. A
// name is read from its own list (every month or weekday formatted with the
// same options), as a locale may name a month otherwise inside a date than
// alone. A date and a time together are the date's pattern, a join and the
// time's (checked here, pattern against pattern, for every such pair): the
// join is the locale's, or the date's (joins[date]), or the pair's
// (joins[date|time]); a pair ICU writes otherwise is kept whole. U+202F is a
// space, as Node's toLocaleString writes it.
//
// Keys: a date's is the widths of weekday (- L S N: absent, long, short,
// narrow), year (- n 2: absent, numeric, 2-digit), month (- n 2 L S N) and
// day (- n 2); a time's, those of hour, minute and second, then t or f for
// hour12, or the hourCycle's hour letter (K h11, h h12, H h23, k h24); a
// style's, s, then dateStyle's code (- f L m S: full, long, medium, short)
// and timeStyle's (- m S),
// then hour12 or the hourCycle as for a time.
const locales = ["en-US", "en-GB", "pt-BR", "pt-PT", "es-ES", "es-MX", "es-419", "es-AR", "es-CO", "es-CL", "de-DE", "fr-FR", "it-IT", "en-CA", "sv-SE"];
const p1 = new Date(Date.UTC(2024, 10, 23, 15, 47, 58));
const p2 = new Date(Date.UTC(2009, 1, 5, 4, 6, 7));
const space = (s) => s.replace(/\u202f/g, " ");
const code = {undefined: "-", numeric: "n", "2-digit": "2", long: "L", short: "S", narrow: "N", full: "f", medium: "m"};
const cycles = [undefined, true, false, "h11", "h12", "h23", "h24"];
const cycleCode = (c) => (c === undefined ? "" : typeof c === "string" ? {h11: "K", h12: "h", h23: "H", h24: "k"}[c] : c ? "t" : "f");
const withCycle = (opts, c) => (c === undefined ? opts : typeof c === "string" ? {...opts, hourCycle: c} : {...opts, hour12: c});

function generate(loc) {
  const months = [], weekdays = [];
  const list = (lists, names) => {
    const key = JSON.stringify(names);
    let i = lists.findIndex((l) => JSON.stringify(l) === key);
    if (i < 0) i = lists.push(names) - 1;
    if (i > 9) throw new Error("more than 10 lists");
    return i;
  };
  const names = (opts, type, dates) => dates.map((d) => space(new Intl.DateTimeFormat(loc, {...opts, timeZone: "UTC"}).formatToParts(d).find((p) => p.type === type).value));
  const monthDates = Array.from({length: 12}, (_, i) => new Date(Date.UTC(2024, i, 15, 12)));
  const weekdayDates = Array.from({length: 7}, (_, i) => new Date(Date.UTC(2024, 0, 7 + i, 12))); // Sunday first
  // pattern is the pattern of opts; with cheap, a name is written N? or E?
  // (no list is read), for comparing shapes.
  function pattern(opts, cheap) {
    const f = new Intl.DateTimeFormat(loc, {...opts, timeZone: "UTC"});
    const a = f.formatToParts(p1), b = f.formatToParts(p2);
    const hc = f.resolvedOptions().hourCycle;
    let out = "";
    for (let i = 0; i < a.length; i++) {
      const x = a[i], two = b[i].value.length === 2;
      if (b[i].type !== x.type) throw new Error(`parts differ: ${loc} ${JSON.stringify(opts)}`);
      const field = (c) => (two ? c + c : c);
      switch (x.type) {
        case "literal":
          if (x.value !== b[i].value) throw new Error(`literals differ: ${loc} ${JSON.stringify(opts)}`);
          out += "'" + space(x.value).replace(/'/g, "''") + "'";
          break;
        case "year": out += x.value.length === 2 ? "yy" : "y"; break;
        case "month": out += /^\d+$/.test(x.value) ? field("M") : "N" + (cheap ? "?" : list(months, names(opts, "month", monthDates))); break;
        case "weekday": out += "E" + (cheap ? "?" : list(weekdays, names(opts, "weekday", weekdayDates))); break;
        case "day": out += field("d"); break;
        case "hour": out += field({h23: "H", h12: "h", h11: "K", h24: "k"}[hc]); break;
        case "minute": out += field("m"); break;
        case "second": out += field("s"); break;
        case "dayPeriod": out += "a"; break;
        default: throw new Error(`part ${x.type}: ${loc} ${JSON.stringify(opts)}`);
      }
    }
    // What toLocaleString writes is the parts' text.
    const text = a.map((p) => space(p.value)).join("");
    if (!cheap && space(p1.toLocaleString(loc, {...opts, timeZone: "UTC"})) !== text) throw new Error(`format differs from its parts: ${loc}`);
    return out;
  }
  const date = [], time = [], styles = [];
  for (const weekday of [undefined, "long", "short", "narrow"]) for (const year of [undefined, "numeric", "2-digit"])
    for (const month of [undefined, "numeric", "2-digit", "long", "short", "narrow"]) for (const day of [undefined, "numeric", "2-digit"]) {
      if (weekday || year || month || day) date.push([code[weekday] + code[year] + code[month] + code[day], {weekday, year, month, day}]);
    }
  for (const hour of [undefined, "numeric", "2-digit"]) for (const minute of [undefined, "numeric", "2-digit"]) for (const second of [undefined, "numeric", "2-digit"]) for (const c of cycles) {
    if (!(hour || minute || second) || (c !== undefined && !hour)) continue;
    time.push([code[hour] + code[minute] + code[second] + cycleCode(c), withCycle({hour, minute, second}, c)]);
  }
  for (const dateStyle of [undefined, "full", "long", "medium", "short"]) for (const timeStyle of [undefined, "medium", "short"]) for (const c of cycles) {
    if (!(dateStyle || timeStyle) || (c !== undefined && !timeStyle)) continue;
    styles.push(["s" + code[dateStyle] + code[timeStyle] + cycleCode(c), pattern(withCycle({dateStyle, timeStyle}, c))]);
  }
  const datePatterns = date.map(([k, o]) => [k, pattern(o)]), timePatterns = time.map(([k, o]) => [k, pattern(o)]);
  const dateByKey = new Map(datePatterns), timeByKey = new Map(timePatterns);
  // The join of each date: the text between its parts and a time's, the
  // same for every time (checked).
  const joinOf = (dateOpts, timeOpts) => {
    const f = new Intl.DateTimeFormat(loc, {...dateOpts, ...timeOpts, timeZone: "UTC"});
    const whole = f.formatToParts(p1).map((p) => space(p.value)).join("");
    const d = space(new Intl.DateTimeFormat(loc, {...dateOpts, timeZone: "UTC"}).format(p1));
    const t = space(new Intl.DateTimeFormat(loc, {...timeOpts, timeZone: "UTC"}).format(p1));
    if (!whole.startsWith(d) || !whole.endsWith(t) || whole.length < d.length + t.length) return null;
    return whole.slice(d.length, whole.length - t.length);
  };
  // A date's join is the one most of the times take; the pairs that take
  // another are listed as date|time.
  const deflt = joinOf({day: "numeric"}, {minute: "numeric"});
  const joins = [], wholes = [];
  for (const [dk, dOpts] of date) {
    const byTime = time.map(([tk, tOpts]) => [tk, tOpts, joinOf(dOpts, tOpts)]);
    const counts = new Map();
    for (const [, , j] of byTime) if (j !== null) counts.set(j, (counts.get(j) || 0) + 1);
    const j = [...counts].sort((x, y) => y[1] - x[1])[0][0];
    if (j !== deflt) joins.push([dk, j]);
    for (const [tk, tOpts, jt] of byTime) {
      const shape = pattern({...dOpts, ...tOpts}, true);
      const pieces = [...tokens(dateByKey.get(dk)), {lit: jt || ""}, ...tokens(timeByKey.get(tk))];
      if (jt === null || canon(tokens(shape)) !== canon(pieces.map((t) => (t.f ? {f: t.f.replace(/^([NE])\d$/, "$1?")} : t)))) {
        wholes.push([dk + "|" + tk, pattern({...dOpts, ...tOpts})]);
      } else if (jt !== j) {
        joins.push([dk + "|" + tk, jt]);
      }
    }
  }
  const h12 = new Intl.DateTimeFormat(loc, {hour: "numeric", hour12: true, timeZone: "UTC"});
  const period = (d) => space(h12.formatToParts(d).find((p) => p.type === "dayPeriod").value);
  return {periods: [period(p2), period(p1)], join: deflt, joins, wholes, months, weekdays, date: datePatterns, time: timePatterns, styles};
}

// tokens are a pattern's fields ({f}) and quoted texts ({lit}).
function tokens(p) {
  const out = [];
  for (let i = 0; i < p.length;) {
    if (p[i] === "'") {
      let j = i + 1, lit = "";
      for (; j < p.length; j++) {
        if (p[j] === "'" && p[j + 1] === "'") { lit += "'"; j++; continue; }
        if (p[j] === "'") break;
        lit += p[j];
      }
      out.push({lit});
      i = j + 1;
    } else if (p[i] === "N" || p[i] === "E") { // a name and its list
      out.push({f: p.slice(i, i + 2)});
      i += 2;
    } else {
      let j = i;
      while (p[j] === p[i]) j++;
      out.push({f: p.slice(i, j)});
      i = j;
    }
  }
  return out;
}

// canon is tokens with adjacent texts as one and no empty one, as JSON.
function canon(toks) {
  const out = [];
  for (const t of toks) {
    if (t.lit === undefined) out.push(t);
    else if (out.length && out[out.length - 1].lit !== undefined) out[out.length - 1] = {lit: out[out.length - 1].lit + t.lit};
    else out.push({lit: t.lit});
  }
  return JSON.stringify(out.filter((t) => t.lit !== ""));
}

const q = JSON.stringify;
const map = (pairs) => `map[string]string{${pairs.map(([k, v]) => `${q(k)}: ${q(v)}`).join(", ")}}`;
const lines = [];
lines.push("// Code generated by testdata/flowscript/date_patterns_gen.js from Node " + process.version + "; DO NOT EDIT.");
lines.push("");
lines.push("package goja");
lines.push("");
lines.push('import "sync"');
lines.push("");
lines.push("// datePatternTable makes each locale's patterns on first use: a worker holds");
lines.push("// those of the locales it formats dates in.");
lines.push("var datePatternTable = map[string]func() *datePatterns{");
for (const loc of locales) {
  const g = generate(loc);
  lines.push(`\t${q(loc)}: sync.OnceValue(func() *datePatterns {`);
  lines.push(`\t\treturn &datePatterns{periods: [2]string{${q(g.periods[0])}, ${q(g.periods[1])}}, join: ${q(g.join)}, joins: ${map(g.joins)},`);
  lines.push(`\t\tmonths: [][12]string{${g.months.map((l) => `{${l.map(q).join(", ")}}`).join(", ")}},`);
  lines.push(`\t\tweekdays: [][7]string{${g.weekdays.map((l) => `{${l.map(q).join(", ")}}`).join(", ")}},`);
  lines.push(`\t\tdate: ${map(g.date)},`);
  lines.push(`\t\ttime: ${map(g.time)},`);
  lines.push(`\t\tstyles: ${map(g.styles)},`);
  lines.push(`\t\twholes: ${map(g.wholes)}}`);
  lines.push(`\t}),`);
}
lines.push("}");
console.log(lines.join("\n"));
