(function () {
const out = [];
const t = (f) => { try { out.push(String(f())); } catch (e) { out.push(e.name + ': ' + e.message); } };
t(() => 1n << (2n ** 53n)); t(() => 1n << (2n ** 64n)); t(() => 1n << (2n ** 30n)); t(() => 0n << (2n ** 80n));
t(() => 5n >> (2n ** 70n)); t(() => -5n >> (2n ** 70n)); t(() => -5n >> 2n); t(() => 5n >> -3n); t(() => 7n << -1n); t(() => -7n << -1n); t(() => -1n >> 1000n);
t(() => 2n ** (2n ** 40n)); t(() => 2n ** (2n ** 30n)); t(() => 1n ** (2n ** 80n)); t(() => (-1n) ** (2n ** 80n + 1n)); t(() => 0n ** (2n ** 80n)); t(() => 3n ** 20n);
t(() => { const n = 53n; return 1n << (2n ** n); }); t(() => { let b = 2n, e = 40n; return b ** (2n ** e); }); t(() => (-8n) >> 1n); t(() => (2n ** 64n) >> 63n); t(() => 1n << 64n);
return out.join('\n');
})()
