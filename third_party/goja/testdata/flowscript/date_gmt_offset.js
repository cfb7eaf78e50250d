(function () {
  // A sign after GMT, UTC or UT starts an offset with or without a time,
  // as in V8 (patch 122). Node's answers, in GMT.
  const out = [];
  for (const s of ['Jan 15 2024 GMT-3', 'Jan 15 2024 GMT-0300', 'Jan 15 2024 GMT+5', 'Jan 15 2024 UTC+2', 'Jan 15 2024 GMT', 'Jan 15 2024 UTC',
    '15 Jan 2024 GMT-03:00', 'Jan 15 2024 -0300', 'Jan 15 2024 +05:30', '2024/01/15 GMT-3', 'Jan 15 2024 10:00 GMT-3', '2024-01-15T23:59:60Z',
    '+002024-01-15', 'Mon Jan 15 2024 GMT-3 (BRT)', 'Jan 15 2024 EST', 'Jan 15 2024 PDT', 'Jan 15 2024 10:00 EST', 'Jan 15 2024 EST-3',
    'Jan 15 GMT-3 2024', 'Jan 15 2024 GMT -3', 'Jan 15 2024 GMT-3:30', 'Jan 15 2024 GMT+0530', 'Jan 15 2024 UT+1', 'Jan 15 2024 Z-2',
    'Jan 15 2024 GMT-12', 'Jan 15 2024 GMT-3 10:00', 'Jan 15 2024 GMT-3 10:00 PM', '1/15/2024 GMT-3', '2024-01-15 GMT-3', 'Jan 15 2024 GMT-x',
    'Jan 2024 GMT-3', 'Mon, 15 Jan 2024 00:00:00 GMT-3', 'Jan 15 2024 UTC-0000', 'Jan 15 2024 GMT-03:00 (Brasilia Standard Time)']) {
    const d = new Date(s);
    out.push(s + ' => ' + (isNaN(d) ? 'Invalid' : d.toISOString()));
  }
  return out.join('\n');
})()
