(function () {
  // Deterministic pseudo-random lists, sorted by consistent and by
  // inconsistent comparators; each line is one sort's result.
  let seed = 12345;
  const rnd = n => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const cmps = {
    numeric: (a, b) => a.v - b.v,
    greater: (a, b) => a.v > b.v,
    less: (a, b) => a.v < b.v,
    noZero: (a, b) => (a.v > b.v ? 1 : -1),
    noZeroDesc: (a, b) => (a.v < b.v ? 1 : -1),
    mixed: (a, b) => ((a.v * 7 + b.v * 3) % 5) - 2,
    always1: () => 1,
    alwaysMinus1: () => -1,
    boolDesc: (a, b) => b.v > a.v,
  };
  const out = [];
  const sizes = [];
  for (let n = 2; n < 64; n++) sizes.push(n);
  sizes.push(64, 65, 100, 257);
  for (const n of sizes) {
    for (const kind of ['random', 'sorted', 'reversed', 'fewValues']) {
      const list = [];
      for (let i = 0; i < n; i++) {
        const v = kind === 'random' ? rnd(1000) : kind === 'sorted' ? i : kind === 'reversed' ? n - i : rnd(4);
        list.push({ v, i });
      }
      for (const [name, cmp] of Object.entries(cmps)) {
        // Past V8's one-run length only the comparators whose order does
        // not depend on the merges are compared.
        if (n >= 64 && !['numeric', 'greater', 'less', 'always1', 'boolDesc'].includes(name)) continue;
        const sorted = list.slice().sort(cmp);
        out.push(n + ' ' + kind + ' ' + name + ': ' + sorted.map(x => x.i).join(','));
      }
    }
  }
  return out.join('\n');
})()
