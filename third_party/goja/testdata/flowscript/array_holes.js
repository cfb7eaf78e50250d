// Patch 87: arrays with holes made by map, pop, a shorter length, a store
// past the end (counted as dense upstream, so new Set, spread and Array.from
// read nil or kept holes), and a random walk of 1,500 array operations per
// seed whose every step's arrays are digested (FNV-1a of the log).
const out = [];
const t = (name, f) => { try { out.push(name + ':' + JSON.stringify(f())); } catch (e) { out.push(name + '!' + e.name + ':' + e.message); } };
t('set-map', () => { const p = []; p[2] = 'b'; p[5] = 'c'; return [...new Set(p.map(s => s.toUpperCase()))]; });
t('set-map2', () => new Set([1,,3].map(x=>x)).size);
t('set-arr', () => new Set(new Array(3).map(x=>1)).size);
t('pop', () => { const q=['x','y']; q.pop(); q[2]='z'; return [new Set(q).size, 1 in q, q.length]; });
t('len', () => { const a=[1,2,3]; a.length=1; a[3]=4; return [Array.from(a).map(x => x ?? 0), 1 in a, [...a].length]; });
t('sorted', () => [1,,3].map(x=>x*2).toSorted().map(x=>x??0));
t('incl', () => { const p = []; p[2] = 'b'; return [p.map(s=>s).includes(undefined), p.includes(undefined), p.map(s=>s).indexOf(undefined)]; });
t('foreach', () => { const q=['a','b','c']; q.pop(); q[3]='d'; let c=0; Array.from(q).forEach(()=>c++); return c; });
t('reversed', () => [1,,3].toReversed().map(x=>x??0));
t('with', () => [1,,3].with(0, 9).map(x=>x??0));
t('spliced', () => [1,,3].toSpliced(0, 0).map(x=>x??0));
t('spread', () => [...[1,,3]].map(x=>x??0));
t('concat', () => [1,,3].concat([4,,6]).map(x=>x??0));
t('slice', () => [1,,3].slice().map(x=>x??0));
t('filter-of', () => { const a = [1,,3].map(x=>x); let n = 0; for (const v of a) n++; return [n, Object.keys(a)]; });
t('join', () => [1,,3].map(x=>x).join('-'));
t('from-set', () => Array.from(new Set([1,,3].map(x=>x))).map(x=>x??0));
t('flat', () => [[1,,3].map(x=>x)].flat().map(x=>x??0));
t('entries', () => [...[1,,3].map(x=>x).entries()]);
t('json', () => JSON.stringify([1,,3].map(x=>x)));
t('destr', () => { const [a, b, c] = [1,,3].map(x=>x); return [a, b, c]; });
t('apply', () => Math.max.apply(null, [1,,3].map(x=>x)));
t('spreadcall', () => ((...args) => args.length)(...[1,,3].map(x=>x)));
t('fill', () => new Array(3).fill().map((x, i) => i));
t('keys', () => Object.keys([1,,3].map(x=>x)));
t('sort', () => [3,,1].map(x=>x).sort());
t('reverse', () => [1,,3].map(x=>x).reverse().map(x=>x??0));

function fuzz(SEED0) {
let seed=SEED0; const rnd=(n)=>{ seed=(seed*1103515245+12345)%2147483648; return Math.floor(seed/2147483648*n) };
const out=[]; let opl;
const show=(a)=>{ const k=Object.keys(a); return a.length+'|'+k.length+'|'+k.slice(0,8).join('.')+'|'+JSON.stringify(a.slice(0,6))+'|'+JSON.stringify(a.slice(-4)) };
let arrs=[[], [1,2,3], new Array(5), Object.seal([1,2]), Array.from({length:30},(_, i)=>i)];
for (let step=0; step<1500; step++) {
  const i=rnd(arrs.length); let a=arrs[i]; const v=rnd(100);
  let r;
  try {
  const op=rnd(30); opl=op; switch(op){
    case 0: a.push(v); break;
    case 1: r=a.shift(); break;
    case 2: a.unshift(v, v+1); break;
    case 3: r=a.splice(rnd(a.length+2)-1, rnd(3), v); break;
    case 4: arrs.push(a.slice(rnd(5)-2)); break;
    case 5: arrs.push(a.concat(arrs[rnd(arrs.length)])); break;
    case 6: a.fill(v, rnd(a.length+1), rnd(a.length+3)); break;
    case 7: a[rnd(a.length+5)] = v; break;
    case 8: delete a[rnd(a.length)]; break;
    case 9: a.length = rnd(a.length+3); break;
    case 10: a.sort((x,y)=>(x??-1)-(y??-1)); break;
    case 11: a.reverse(); break;
    case 12: r=a.pop(); break;
    case 13: arrs.push(Array.from(a)); break;
    case 14: arrs.push(a.filter(x=>x%2)); break;
    case 15: arrs.push(a.map(x=>x)); break;
    case 16: a.copyWithin(rnd(a.length), rnd(a.length)); break;
    case 17: arrs.push([...a]); break;
    case 18: if (v<5) Object.freeze(a); else if (v<10) Object.preventExtensions(a); break;
    case 19: arrs.push(a.toSpliced(rnd(a.length), 1)); break;
    case 20: r=new Set(a).size; break;
    case 21: arrs.push(a.toSorted((x,y)=>(x??-1)-(y??-1))); break;
    case 22: arrs.push(a.toReversed()); break;
    case 23: if (a.length) arrs.push(a.with(rnd(a.length), v)); break;
    case 24: r=[a.includes(undefined), a.indexOf(undefined), a.lastIndexOf(undefined)]; break;
    case 25: { let n=0; for (const x of a) n++; let m=0; Array.from(a).forEach(()=>m++); let k=0; a.forEach(()=>k++); r=[n,m,k,[...new Set(a)].length, Math.max(...a.map(x=>x??0), 0)]; } break;
    case 26: r=[...a.entries()].length + ':' + [...a.keys()].length + ':' + [...a.values()].filter(x=>x===undefined).length; break;
    case 27: arrs.push(a.flat()); break;
    case 28: r=a.join('-'); break;
    case 29: arrs.push(Array.of(...a)); break;
  }
  } catch(e) { r='E:'+e.name }
  if (arrs.length>20) arrs.splice(rnd(20),1);
  arrs = arrs.map(x=> x.length>2000 ? x.slice(0,100) : x);
  out.push(step+' op'+opl+' i'+i+' '+(r===undefined?'':JSON.stringify(r))+' '+show(a)+' ALL '+arrs.map(x=>x.length+':'+Object.keys(x).length).join(','));
}
return out.join('\n');

}
function digest(s) { let h = 0x811c9dc5; for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619) >>> 0; } return h.toString(16) + '/' + s.length; }
for (const seed of [1, 2, 3, 4, 5, 6]) out.push('fuzz ' + seed + ' ' + digest(fuzz(seed)));
out.join('\n')
