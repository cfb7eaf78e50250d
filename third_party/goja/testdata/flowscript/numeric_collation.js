(function () {
const out = [];
const pairs = [['img0.png','img2.png'],['0','1'],['0a','1a'],['x0y','x1y'],['00','1'],['0','a'],['0a','a'],['a0','a1'],['0','00'],['1','01'],['v0.9','v1.0'],['R$ 0,50','R$ 1,00'],['0:45','1:00'],['item 10','item 9'],['item 010','item 9'],['a99b','a100b'],['a','a0'],['a0','a00'],['a0b','a00b'],['x 0','x 0 '],['9','10'],['0.5','0.05'],['', '0'],['Ä0','a1'],['é9','e10'],['０','１'],['999999999999999999999','1000000000000000000000'],['file-000-a','file-0-b']];
for (const [a, b] of pairs) {
  out.push(a + ' | ' + b + ' : ' + a.localeCompare(b, undefined, {numeric: true}) + ' ' + a.localeCompare(b, 'pt-BR', {numeric: true, sensitivity: 'base'}) + ' ' + a.localeCompare(b, 'en-u-kn', {sensitivity: 'case'}) + ' ' + b.localeCompare(a, 'de', {numeric: true}));
}
out.push(['img10.png','img0.png','img2.png','img00.png','img1.png','img.png','img-1.png'].sort((a,b)=>a.localeCompare(b,undefined,{numeric:true})).join());
out.push(['R$ 0,50','R$ 10,00','R$ 2,00','R$ 0,05'].sort((a,b)=>a.localeCompare(b,'pt-BR',{numeric:true})).join());
return out.join('\n');
})()
