(function () {
const out = [];
for (const h of ['0', '00', '1', '11', '12', '13', '23', '24'])
  for (const m of ['AM', 'PM', 'am', ' pm'])
    for (const f of ['Jan 15 2024 HH:30 M', '1/15/2024 HH:30 M', '2024/01/15 HH:30:05 M', 'Mon, 15 Jan 2024 HH:30 M']) {
      const s = f.replace('HH', h).replace(' M', ' ' + m.trim());
      const d = new Date(s + ' GMT');
      out.push(s + ' => ' + (isNaN(d) ? 'Invalid' : d.toISOString()));
    }
return out.join('\n');
})()
