(function () {
  const out = [];
  Object.preventExtensions(Set.prototype);
  out.push(Reflect.setPrototypeOf(Set.prototype, Object.prototype), Object.getPrototypeOf(Set.prototype) === Object.prototype, typeof new Set().hasOwnProperty);
  Object.preventExtensions(Map.prototype);
  out.push(Reflect.setPrototypeOf(Map.prototype, null), Object.getPrototypeOf(Map.prototype) === Object.prototype);
  Object.preventExtensions(String);
  out.push(Reflect.setPrototypeOf(String, Function.prototype), typeof String.call);
  Object.freeze(RegExp.prototype);
  out.push(Reflect.setPrototypeOf(RegExp.prototype, Object.prototype), Reflect.setPrototypeOf(RegExp.prototype, null), Object.getPrototypeOf(RegExp.prototype) === Object.prototype);
  Object.preventExtensions(String.prototype);
  out.push(Reflect.setPrototypeOf(String.prototype, Object.prototype), Reflect.setPrototypeOf(String.prototype, null));
  const o = Object.create(null);
  out.push(Reflect.setPrototypeOf(Set.prototype, o) === false);
  return JSON.stringify(out);
})()
