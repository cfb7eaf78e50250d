(function () {
const d = new Date(Date.UTC(2024, 0, 15, 12, 0));
const out = [];
for (const tz of ['no/such_zone', 'Local', '', 'america/sao_paulo/x', 'us/pacific', 'est5edt', 'zulu', 'AMERICA/PORT-AU-PRINCE', 'America/Sao_Paulo', 'america/sao_paulo', 'AMERICA/SAO_PAULO', 'utc', 'Etc/gmt+3', 'europe/london', 'Asia/Kolkata', 'asia/calcutta']) {
  try { out.push(tz + ' ' + d.toLocaleString('en-US', {timeZone: tz})); } catch (e) { out.push(tz + ' ' + e.name + ': ' + e.message); }
}
return out.join('\n');
})()
