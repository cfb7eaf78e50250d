// Writes flowscript_zonenames.go (FlowScript patch 51) from Node's ICU, and
// the test's golden file, for every zone of /usr/share/zoneinfo that Go's
// time.LoadLocation reads (posix/, right/, posixrules, localtime, Factory
// and the files that are not TZif left out):
//
//	node testdata/flowscript/zone_names_gen.js > flowscript_zonenames.go && gofmt -w flowscript_zonenames.go
//	node testdata/flowscript/zone_names_gen.js golden > testdata/flowscript/zone_names.node.json
//
// (from third_party/goja; a zoneinfo directory other than /usr/share/zoneinfo
// may follow, after golden or alone).
//
// What V8 writes in the parentheses of String(date) is not what Intl's
// timeZoneName writes for that instant: V8 asks ICU once for the zone's
// standard name and once for its daylight name, both as of today (the
// zone's current metazone: Cancún's winters of 2005, at GMT-0600, are
// "Eastern Standard Time"), and picks one by whether ICU counts the instant
// as daylight saving time (its DST offset is not zero; Dublin's winter is
// standard). An instant before 1970 or after 2038-01-19 is first moved to
// the same day of an equivalent year of 2008-2037 (DateCache::LocalTimezone,
// EquivalentTime): a July of 1960 in Paris is "Central European Summer
// Time". A zone without a long name (or without a daylight one) has the
// offset, localized: its current standard offset, or that plus its DST
// savings for daylight time (America/Punta_Arenas is "GMT-03:00" in the
// winters of 2005, at GMT-0400).
//
// So the table keys the name by the UTC offset in effect, which Go knows
// (its IsDST does not say what ICU's DST offset says: Dublin, Casablanca).
// For each zone every week of 1970-01-01 through 2038-01-19 is read
// (String(date) with process.env.TZ set to the zone); a zone's rules are
// {from, offset, name}: from that instant (Unix seconds; 0 for all time)
// that offset has that name, until the offset's next rule. The time of a
// change of name is found to the second by bisection. An offset named by
// zoneNameGMT's text (GMT+01:00) from the start needs no rule: that is the
// lookup's answer when no rule has the offset. Zones with the same rules
// share them; names are indexes into zoneNameList.
//
// The golden file has the instants, and a line per zone: the zone and
// Node's String(date) at each instant.
const fs = require("fs"), path = require("path");

const golden = process.argv[2] === "golden";
const root = process.argv[golden ? 3 : 2] || "/usr/share/zoneinfo";
const zones = [];
(function walk(dir, rel) {
  for (const e of fs.readdirSync(dir).sort()) {
    const name = rel ? rel + "/" + e : e;
    if (!rel && ["posix", "right", "posixrules", "localtime", "Factory"].includes(e)) continue;
    const p = path.join(dir, e);
    if (fs.statSync(p).isDirectory()) {
      walk(p, name);
      continue;
    }
    const fd = fs.openSync(p, "r"), magic = Buffer.alloc(4);
    fs.readSync(fd, magic, 0, 4, 0);
    fs.closeSync(fd);
    if (magic.toString("latin1") === "TZif") zones.push(name);
  }
})(root, "");
zones.sort();

// setZone sets process.env.TZ to z, or to the zone ICU takes z for where
// Node's Date does not run z as Intl does (checked each quarter of
// 1900-2040): with TZ=Eire, Node's Date runs a fixed +01:00 named Greenwich
// Mean Time (ICU's detection of the host's zone seems to take a name of 3
// or 4 letters for an abbreviation when the C library's raw offset for it,
// +01:00 for Dublin, whose winter is negative DST in glibc's data, is not
// ICU's, 0). A Go zone named Eire is Europe/Dublin, and named so.
function setZone(z) {
  const f = new Intl.DateTimeFormat("en-US", {timeZone: z, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric"});
  const local = (d) => Date.UTC(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds());
  const intl = (d) => {
    const p = {};
    for (const {type, value} of f.formatToParts(d)) p[type] = +value;
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  };
  const agrees = () => {
    for (let y = 1900; y <= 2040; y++) {
      for (const m of [0, 3, 6, 9]) {
        const d = new Date(Date.UTC(y, m, 15, 12));
        if (local(d) !== intl(d)) return false;
      }
    }
    return true;
  };
  for (const tz of [z, f.resolvedOptions().timeZone]) {
    process.env.TZ = tz;
    if (agrees()) return;
  }
  throw new Error(`Node's Date does not run ${z} as Intl does`);
}

// name is the zone's name in String(d), for process.env.TZ.
const name = (d) => {
  const s = String(d);
  return s.slice(s.indexOf(" (") + 2, -1);
};

function writeGolden() {
  const instants = [[1900, 6], [1960, 0], [1960, 6], [2005, 0], [2005, 6], [2021, 0], [2021, 6], [2026, 0], [2026, 6], [2040, 6]].map(([y, m]) => new Date(Date.UTC(y, m, 15, 12)));
  const rows = zones.map((z) => {
    setZone(z);
    return JSON.stringify([z, ...instants.map((d) => String(d))]);
  });
  console.log(`{"instants": ${JSON.stringify(instants)}, "zones": [\n${rows.join(",\n")}\n]}`);
}

// gmt is zoneNameGMT: ICU's localized GMT format, as V8 writes an offset
// without a name.
const gmt = (o) => {
  const sign = o < 0 ? "-" : "+", two = (n) => String(n).padStart(2, "0");
  o = Math.abs(o);
  return "GMT" + sign + two(Math.floor(o / 3600)) + ":" + two(Math.floor(o / 60) % 60) + (o % 60 ? ":" + two(o % 60) : "");
};
// probe is the offset (seconds, from the local fields: getTimezoneOffset
// drops the seconds) and the name at sec.
const probe = (sec) => {
  const d = new Date(sec * 1000);
  const local = Date.UTC(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds());
  return [(local - sec * 1000) / 1000, name(d)];
};
const maxEpoch = 2147483647; // DateCache::kMaxEpochTimeInSec
const week = 7 * 86400;

function writeTable() {
  const names = new Map(); // name → index
  const tables = new Map(); // rules, as a Go literal → index
  const tableOf = new Map(); // zone → index
  for (const z of zones) {
    setZone(z);
    const current = new Map(); // offset → name
    const rules = [];
    let prev = 0;
    for (let sec = 0; ; sec = Math.min(sec + week, maxEpoch)) {
      const [o, n] = probe(sec);
      if (current.get(o) !== n) {
        let from = 0;
        if (current.has(o)) {
          // The first second from prev on with this offset and name.
          let lo = prev, hi = sec;
          while (hi - lo > 1) {
            const mid = Math.floor((lo + hi) / 2), [mo, mn] = probe(mid);
            if (mo === o && mn === n) hi = mid;
            else lo = mid;
          }
          from = hi;
        }
        if (from !== 0 || n !== gmt(o)) rules.push([from, o, n]);
        current.set(o, n);
      }
      prev = sec;
      if (sec === maxEpoch) break;
    }
    rules.sort((a, b) => a[0] - b[0]);
    for (const r of rules) if (!names.has(r[2])) names.set(r[2], names.size);
    const lit = "{" + rules.map(([from, o, n]) => `{${from}, ${o}, ${names.get(n)}}`).join(", ") + "}";
    if (!tables.has(lit)) tables.set(lit, tables.size);
    tableOf.set(z, tables.get(lit));
  }

  const lines = [];
  lines.push("// Code generated by testdata/flowscript/zone_names_gen.js from Node " + process.version + "; DO NOT EDIT.");
  lines.push("");
  lines.push("package goja");
  lines.push("");
  lines.push("// zoneNameList are the names of zoneNameRules.");
  lines.push("var zoneNameList = [...]string{");
  for (const n of names.keys()) lines.push(`\t${JSON.stringify(n)},`);
  lines.push("}");
  lines.push("");
  lines.push("// zoneNameRules are the rules of the zones of zoneNameTables, by index.");
  lines.push("var zoneNameRules = [...][]zoneNameRule{");
  for (const lit of tables.keys()) lines.push(`\t${lit},`);
  lines.push("}");
  lines.push("");
  lines.push("// zoneNameTables is the index in zoneNameRules of each zone's rules.");
  lines.push("var zoneNameTables = map[string]uint16{");
  let line = "";
  for (const z of zones) {
    const entry = `${JSON.stringify(z)}: ${tableOf.get(z)},`;
    if (line && line.length + 1 + entry.length > 100) {
      lines.push("\t" + line);
      line = "";
    }
    line += (line ? " " : "") + entry;
  }
  lines.push("\t" + line);
  lines.push("}");
  console.log(lines.join("\n"));
}

if (golden) writeGolden();
else writeTable();
