(function () {
  // Array.prototype[Symbol.unscopables] as ES2023 has it: "at" is in it,
  // and no methods the prototype does not have (patch 127). Node's answers.
  const u = Array.prototype[Symbol.unscopables];
  const out = [Object.keys(u).join(','), String(Object.getPrototypeOf(u)),
    JSON.stringify(Object.getOwnPropertyDescriptor(Array.prototype, Symbol.unscopables))];
  // Every listed name is a method of the prototype.
  out.push(Object.keys(u).every(name => typeof Array.prototype[name] === 'function'));
  // A with statement sees through the listed names to the outer scope.
  const r = (new Function('var at = "outer", keys = "outer2", map = "outer3"; with ([1, 2]) { return [typeof at, typeof keys, typeof map] }'))();
  out.push(JSON.stringify(r));
  return out.join('\n');
})()
