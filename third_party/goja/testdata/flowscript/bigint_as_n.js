(function () {
  // asIntN and asUintN of a value that fits return it without making
  // 2^bits; 2^bits plus a negative value past V8's largest BigInt is its
  // RangeError (patch 125). Node's answers.
  const out = [];
  const t = (f) => { try { out.push(String(f())); } catch (e) { out.push(e.name + ': ' + e.message); } };
  for (const b of [2 ** 30 + 1, 2 ** 31, 2 ** 40]) t(() => BigInt.asUintN(b, -1n));
  t(() => [BigInt.asUintN(2 ** 31, 5n), BigInt.asIntN(2 ** 28, -1n), BigInt.asIntN(2 ** 53 - 1, 7n), BigInt.asUintN(0, 5n), BigInt.asIntN(0, -5n),
    BigInt.asIntN(3, 4n), BigInt.asIntN(3, -4n), BigInt.asIntN(3, -5n), BigInt.asUintN(3, 8n), BigInt.asUintN(3, -1n), BigInt.asIntN(1, 1n),
    BigInt.asIntN(64, 2n ** 63n), BigInt.asIntN(64, -(2n ** 63n)), BigInt.asUintN(64, -1n), BigInt.asIntN(2 ** 53 - 1, -(2n ** 100n))].join());
  return out.join('\n');
})()
