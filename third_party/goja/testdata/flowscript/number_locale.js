// Number.prototype.toLocaleString by locale and options (FlowScript patch
// 25): the same file runs in Node (number_locale.node.json) and in goja.
(function () {
  const values = [0, -0, 1, -1, 0.5, 1.005, 2.5, -2.5, 1234, 1234.5, 12345.678, -1234.5, 999.9996,
    0.0001, -0.0001, 1e21, 123456789.123, 0.256, 99.995, NaN, Infinity, -Infinity, 1e-7, 0.045];
  const locales = [undefined, "pt-BR", "pt", "pt-br", "en-US", "en", "en-GB", "pt-PT", "es", "es-MX", "es-419",
    "es-AR", "es-CO", "es-CL", "es-cl", "de", "de-DE", "fr", "fr-FR", "it", "xx", "pt-BR-u-nu-latn", "es-ES", "it-IT",
    ["pt-BR", "en"], [], ["de"]];
  const options = [undefined, {}, {style: "decimal"}, {style: "currency", currency: "BRL"},
    {style: "currency", currency: "USD"}, {style: "currency", currency: "EUR"},
    {style: "currency", currency: "GBP"}, {style: "currency", currency: "JPY"},
    {style: "currency", currency: "MXN"}, {style: "currency", currency: "CLP"},
    {style: "currency", currency: "brl"}, {style: "currency", currency: "BRL", currencyDisplay: "code"},
    {style: "currency", currency: "BRL", currencyDisplay: "narrowSymbol"},
    {style: "currency", currency: "XYZ"}, {style: "percent"}, {minimumFractionDigits: 2},
    {maximumFractionDigits: 0}, {minimumFractionDigits: 2, maximumFractionDigits: 2},
    {maximumFractionDigits: 1}, {minimumIntegerDigits: 3}, {useGrouping: false},
    {style: "percent", minimumFractionDigits: 1}, {style: "currency", currency: "BRL", maximumFractionDigits: 0},
    {style: "currency", currency: "BRL", minimumFractionDigits: 0}, {minimumFractionDigits: 5},
    {style: "currency", currency: "KWD"}, {useGrouping: "always"}, {useGrouping: "min2"},
    {notation: "standard", signDisplay: "auto"}, {useGrouping: true},
    {style: "currency", currency: "EUR", useGrouping: true}, {useGrouping: "true"}, {useGrouping: "false"}];
  const errors = [[1, "", undefined], [1, "not a tag", undefined], [1, [1], undefined],
    [1, "pt-BR", {style: "currency"}], [1, "pt-BR", {style: "bogus"}], [1, "pt-BR", {style: "currency", currency: "BR"}],
    [1, "pt-BR", {minimumFractionDigits: 3, maximumFractionDigits: 2}], [1, "pt-BR", {maximumFractionDigits: 101}],
    [1, "pt-BR", {minimumIntegerDigits: 0}], [1, "pt-BR", {minimumFractionDigits: -1}],
    [1.5, "pt-BR", {minimumFractionDigits: 21}], [1.5, "pt-BR", {maximumFractionDigits: 21}], [1.5, "pt-BR", {maximumFractionDigits: 20}],
    [1.5, "pt-BR", {minimumFractionDigits: 20}]];
  const out = [];
  for (const l of locales) {
    for (const o of options) {
      out.push(JSON.stringify(l) + " " + JSON.stringify(o) + ": " + values.map(v => v.toLocaleString(l, o)).join(" | "));
    }
  }
  for (const [v, l, o] of errors) {
    try {
      out.push(v.toLocaleString(l, o));
    } catch (e) {
      out.push(JSON.stringify(l) + " " + JSON.stringify(o) + ": " + e.name);
    }
  }
  out.push(typeof Number.prototype.toLocaleString, Number.prototype.toLocaleString.length, Number.prototype.toLocaleString.name,
    (5).toLocaleString.call(new Number(1234.5), "pt-BR"));
  return JSON.stringify(out, null, 0);
})()
