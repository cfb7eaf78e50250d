(function () {
  // localeCompare(that, 'tag') keeps the collator of a tag given as a
  // string without options (patch 129): the answers are the same call
  // after call, an invalid tag throws every time, and more tags than the
  // runtime keeps still compare by their own rules; Norwegian (nb, no)
  // orders å last. Node's answers.
  const out = [];
  const words = ['résumé', 'resume', 'Resume', 'item 10', 'item 9', 'ä', 'z', 'a', 'ch', 'cz', 'h', 'å', 'ö', 'o', 'ñ', 'n'];
  const tags = ['pt-BR', 'en', 'de', 'sv', 'es', 'fr', 'en-u-kn-true', 'pt-u-kn-true', 'no', 'fi', 'nb', 'is', 'ca', 'it', 'nl', 'pl', 'cs', 'sk', 'ro', 'hu'];
  for (let round = 0; round < 2; round++) {
    for (const tag of tags) {
      out.push(round + ' ' + tag + ' ' + words.slice().sort((a, b) => a.localeCompare(b, tag)).join(','));
    }
  }
  for (let i = 0; i < 3; i++) {
    try { 'a'.localeCompare('b', 'en_US'); out.push('no error'); } catch (e) { out.push(e.name); }
    try { 'a'.localeCompare('b', ''); out.push('no error'); } catch (e) { out.push(e.name); }
  }
  // A String object as the tag is read afresh each call, as are arrays and options.
  let reads = 0;
  const tagObj = { toString() { reads++; return 'de'; } };
  out.push(['a', 'ä', 'b'].sort((a, b) => a.localeCompare(b, [tagObj])).join(',') + ' ' + (reads > 2));
  out.push(['item 10', 'item 9'].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).join(','));
  out.push(['item 10', 'item 9'].sort((a, b) => a.localeCompare(b, 'en')).join(','));
  return out.join('\n');
})()
