// Patch 90: Date's toLocale*String with Intl.DateTimeFormat's options
// (fields, hour12, hourCycle, timeZone, dateStyle and timeStyle) against
// Node's answers (date_options.node.json): the forms chatbot scripts write,
// the errors, and a random walk of 3,000 calls, digested (FNV-1a).
(function () {
  const out = [];
  const d = new Date(Date.UTC(2024, 0, 1, 15, 5, 9));
  const sp = {timeZone: "America/Sao_Paulo"};
  const t = (f) => {
    try {
      out.push(f());
    } catch (e) {
      out.push(e.name + ": " + e.message);
    }
  };
  t(() => d.toLocaleTimeString("pt-BR", {hour: "2-digit", minute: "2-digit", ...sp}));
  t(() => d.toLocaleTimeString("pt-BR", {hour: "2-digit", minute: "2-digit"}));
  t(() => d.toLocaleString("pt-BR", {...sp, hour12: false}));
  t(() => d.toLocaleDateString("pt-BR", {day: "2-digit", month: "2-digit", year: "numeric", ...sp}));
  t(() => d.toLocaleDateString("pt-BR", {weekday: "long", ...sp}));
  t(() => d.toLocaleDateString("pt-BR", {day: "numeric", month: "long", year: "numeric", ...sp}));
  t(() => d.toLocaleDateString("pt-BR", {month: "long"}));
  t(() => d.toLocaleString("pt-BR", {dateStyle: "full", timeStyle: "short", ...sp}));
  t(() => d.toLocaleString("pt-BR", {dateStyle: "short", timeStyle: "short", ...sp}));
  t(() => d.toLocaleDateString("pt-BR", {dateStyle: "long"}));
  t(() => d.toLocaleTimeString("en-US", {hour: "numeric", minute: "2-digit", hour12: true, timeZone: "America/New_York"}));
  t(() => d.toLocaleTimeString("en-US", {hour12: false}));
  t(() => d.toLocaleTimeString("pt-BR", {hourCycle: "h11"}));
  t(() => d.toLocaleString("es-MX", {weekday: "short", day: "numeric", month: "short", hour: "numeric", minute: "2-digit"}));
  t(() => d.toLocaleString("de-DE", {month: "short", day: "numeric"}));
  t(() => d.toLocaleString("fr-FR", {weekday: "long", day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit"}));
  t(() => d.toLocaleString("pt-BR", {timeZone: "America/Sao_Paulo", foo: 1}));
  t(() => d.toLocaleString("pt-BR", Object.create(sp)));
  t(() => d.toLocaleString("pt-BR", {hour: "long"}));
  t(() => d.toLocaleDateString("pt-BR", {weekday: "numeric"}));
  t(() => d.toLocaleString("pt-BR", {hourCycle: "h25"}));
  t(() => d.toLocaleString("pt-BR", {dateStyle: "huge"}));
  t(() => d.toLocaleString("pt-BR", {dateStyle: "short", month: "long"}));
  t(() => d.toLocaleTimeString("pt-BR", {dateStyle: "short"}));
  t(() => d.toLocaleDateString("pt-BR", {timeStyle: "short"}));
  t(() => d.toLocaleString("pt-BR", {timeZone: "Mars/Base", hour: "numeric"}));
  t(() => d.toLocaleString("en-US", {calendar: "gregory", numberingSystem: "latn", hour: "numeric"}));
  // Years before 1 are the era's (0 is 1 BC, -1 is 2), as Node writes them.
  for (const y of [-1000, -99, -1, 0, 1, 5, 99, 100, 12345]) {
    const x = new Date(Date.UTC(2000, 0, 1));
    x.setUTCFullYear(y);
    t(() => [x.toLocaleDateString("en-US"), x.toLocaleString("pt-BR", {year: "2-digit", month: "short"}), x.toLocaleDateString("pt-BR", {dateStyle: "short"})].join(" | "));
  }

  let seed = 7;
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return Math.floor((seed / 2147483648) * n);
  };
  const pick = (a) => a[rnd(a.length)];
  const locs = [undefined, "pt-BR", "en-US", "es-MX", "fr-FR", "de-DE", "es-CL", "it-IT", "en-GB", "pt-PT", "es-AR", "es-CO", "es-419", "es", "pt", "xx"];
  const zones = [undefined, "America/Sao_Paulo", "UTC", "Asia/Kolkata", "America/New_York", "Europe/Lisbon"];
  const dates = [new Date(Date.UTC(2024, 0, 1, 3, 5, 9)), new Date(Date.UTC(2024, 10, 23, 15, 47, 58)), new Date(Date.UTC(2020, 1, 29, 12, 0, 0)),
    new Date(Date.UTC(1999, 11, 31, 23, 59, 59)), new Date(Date.UTC(2024, 5, 1, 0, 0, 0)), new Date(Date.UTC(2023, 8, 17, 11, 30, 0))];
  const walk = [];
  for (let i = 0; i < 3000; i++) {
    const o = {};
    if (rnd(6) === 0) {
      if (rnd(3)) o.dateStyle = pick(["full", "long", "medium", "short"]);
      if (rnd(2)) o.timeStyle = pick(["medium", "short"]);
    } else {
      if (rnd(3) === 0) o.weekday = pick(["long", "short", "narrow"]);
      if (rnd(2)) o.year = pick(["numeric", "2-digit"]);
      if (rnd(2)) o.month = pick(["numeric", "2-digit", "long", "short", "narrow"]);
      if (rnd(2)) o.day = pick(["numeric", "2-digit"]);
      for (const f of ["hour", "minute", "second"]) if (rnd(2)) o[f] = pick(["numeric", "2-digit"]);
    }
    const r = rnd(10);
    if (r === 0) o.hour12 = true;
    else if (r === 1) o.hour12 = false;
    else if (r === 2) o.hourCycle = pick(["h11", "h12", "h23", "h24"]);
    const z = pick(zones);
    if (z) o.timeZone = z;
    const m = pick(["toLocaleString", "toLocaleDateString", "toLocaleTimeString"]);
    let s;
    try {
      s = pick(dates)[m](pick(locs), o);
    } catch (e) {
      s = e.name + ": " + e.message;
    }
    walk.push(s);
  }
  const text = walk.join("\n");
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  out.push("walk " + h.toString(16) + "/" + text.length);
  return out.join("\n");
})()
