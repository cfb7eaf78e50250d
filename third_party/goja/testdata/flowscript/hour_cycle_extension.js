(function () {
  // A locale's -u-hc- extension, alone and beside hour12, hourCycle and the
  // styles (patch 115); the answers are Node 20's.
  const ts = [new Date(Date.UTC(2024, 0, 15, 0, 5, 9)), new Date(Date.UTC(2024, 0, 15, 15, 5, 9)), new Date(Date.UTC(2024, 6, 4, 12, 30, 0))];
  const opts = [{}, {hour: 'numeric', minute: '2-digit'}, {timeStyle: 'short'}, {timeStyle: 'medium'},
    {dateStyle: 'short', timeStyle: 'short'}, {hour12: true}, {hour12: false}, {hourCycle: 'h23'},
    {hour12: true, timeStyle: 'short'}, {hour12: false, timeStyle: 'medium'}];
  const out = [];
  for (const l of ['en-US', 'pt-BR', 'en-GB', 'de-DE', 'es-MX'])
    for (const hc of ['', '-u-hc-h11', '-u-hc-h12', '-u-hc-h23', '-u-hc-h24', '-u-ca-gregory-hc-h23', '-u-hc-h99'])
      for (const o of opts)
        out.push(l + hc + ' ' + JSON.stringify(o) + ': ' + ts.map(t => t.toLocaleString(l + hc, {timeZone: 'UTC', ...o})).join(' | '));
  out.push(new Date(Date.UTC(2024, 0, 15, 15, 5)).toLocaleTimeString(['EN-us-U-HC-H23', 'pt-BR'], {timeZone: 'UTC'}));
  return out.join('\n');
})()
