// Number.prototype.toLocaleString of currencies past numberLocales' own
// (FlowScript patch 100): node -p "$(cat currency_locale.js)" > currency_locale.node.json
(() => {
  const locales = ["en-US", "en-GB", "pt-BR", "pt-PT", "es-ES", "es-MX", "es-419", "es-AR", "es-CO", "es-CL", "de-DE", "fr-FR", "it-IT"];
  const codes = "AED AUD BGN BOB CAD CHF CNY CRC CUP CZK DKK DOP EGP GTQ HKD HNL HUF IDR ILS INR KES KRW MAD MYR NGN NIO NOK NZD PAB PEN PHP PLN PYG RON RUB SAR SEK SGD THB TRY TWD UAH UYU VES VND XAF XOF ZAR".split(" ");
  const out = [];
  for (const l of locales) for (const c of codes) for (const d of ["symbol", "narrowSymbol", "code"]) {
    out.push(l + " " + c + " " + d + ": " + [1234.5, -1, 0].map(v => v.toLocaleString(l, {style: "currency", currency: c, currencyDisplay: d})).join(" | "));
  }
  return JSON.stringify(out);
})()
