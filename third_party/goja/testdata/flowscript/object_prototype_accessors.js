(function () {
  const out = [];
  const log = [];
  Object.defineProperty(Object.prototype, "flags", { get() { return "from Object.prototype"; }, configurable: true });
  Object.defineProperty(Object.prototype, "size", { value: -1, writable: false, configurable: true });
  Object.defineProperty(Object.prototype, "source", { get() { return "OP"; }, set(v) { log.push("setter called"); }, configurable: true });
  out.push(/a/g.flags, RegExp.prototype.hasOwnProperty("flags"), new Set([1, 2]).size, new Map([[1, 1]]).size, /abc/.source, log.length);
  delete Object.prototype.flags;
  delete Object.prototype.size;
  delete Object.prototype.source;
  return JSON.stringify(out);
})()
