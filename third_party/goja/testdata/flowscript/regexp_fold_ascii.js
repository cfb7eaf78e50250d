(function(){
const r = (function(){
return [/s/i.test('ſ'), /[a-z]/i.test('ſ'), /[^a-z]/i.test('ſ'), /k/i.test('\u212A'), 'ſ'.replace(/[a-z]/i, '-'), 'ſ'.replace(/[a-z]/gi, '-'), /(?<=a)s/i.test('aſ'), /s/iu.test('ſ'), /\u017F/i.test('s'), /S/i.test('ſ'), /st/i.test('ſt'), /ſ/i.test('s'), /ſ/i.test('S'), /\u212A/i.test('k'), /K/i.test('k'), 'Kſ'.match(/[ks]/gi), /s/i.exec('aſs').index, 'ſs'.search(/S/i), 'xſ'.split(/s/i), /\u017f/i.test('S')]
})();
return JSON.stringify(r);
})()
