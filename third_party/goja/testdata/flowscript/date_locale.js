// Date's toLocaleDateString, toLocaleTimeString and toLocaleString by
// locale, without options or with timeZone alone (FlowScript patch 25): the same file runs in
// Node (date_locale.node.json) and in goja. Local-time dates, so that the
// fields are the same in any time zone.
(function () {
  const ds = [new Date(2020, 0, 5, 3, 4, 5), new Date(2020, 11, 25, 15, 14, 59), new Date(2020, 11, 25, 0, 0, 0),
    new Date(2020, 11, 25, 12, 0, 0), new Date(1999, 9, 31, 23, 59, 9)];
  const out = [];
  for (const l of [undefined, "en-US", "en", "en-GB", "pt-BR", "pt", "pt-br", "pt-PT", "es", "es-ES", "es-MX", "es-419", "es-AR",
    "es-CO", "es-CL", "de", "de-DE", "fr", "fr-FR", "it", "it-IT", "en-CA", "en-ca", "sv-SE", "sv", "en-CA-u-hc-h23", "xx", ["pt-BR"], []]) {
    out.push(JSON.stringify(l) + " " + JSON.stringify(ds.map(d => [d.toLocaleDateString(l), d.toLocaleTimeString(l), d.toLocaleString(l)])));
  }
  // With timeZone as the only option, in that zone; UTC dates, so the same anywhere.
  const u = new Date(Date.UTC(2020, 11, 25, 1, 14, 59));
  for (const o of [{timeZone: "America/Sao_Paulo"}, {timeZone: "UTC"}, {timeZone: "Europe/Lisbon"}, {timeZone: "Asia/Tokyo"},
    {timeZone: "America/Mexico_City"}]) {
    out.push(JSON.stringify(o) + " " + [u.toLocaleString("pt-BR", o), u.toLocaleDateString("pt-BR", o), u.toLocaleTimeString("en-US", o),
      u.toLocaleString("es-MX", o)].join(" | "));
  }
  for (const bad of ["Mars/Base", "../etc/passwd", "/etc/localtime", "", "Local"]) {
    try {
      out.push(u.toLocaleString("pt-BR", {timeZone: bad}));
    } catch (e) {
      out.push(e.name + ": " + e.message);
    }
  }
  out.push(new Date(NaN).toLocaleDateString("pt-BR"), new Date(NaN).toLocaleString("pt-BR"));
  for (const bad of ["", "not a tag"]) {
    try {
      out.push(new Date(0).toLocaleDateString(bad));
    } catch (e) {
      out.push(e.name);
    }
  }
  return JSON.stringify(out, null, 0);
})()
