// Runs first in every fresh runtime, before the author's program. It removes
// the ways to generate code from strings and the engine's one host global.
// It touches as few built-ins as it can: each one it touches is materialized
// in every runtime, and that cost is paid per job. The result serializer
// and the error describer are Go code (serialize.go): they hold their own
// references to the built-ins they use, taken before the script runs.
(function (global, lockGenerators, deleteGlobals, extraFunctionPrototypes) {
	"use strict";
	var getPrototypeOf = Object.getPrototypeOf;
	var defineProperty = Object.defineProperty;

	// The Function constructor and its async and generator siblings all
	// compile strings; every path to them now leads to this thrower, which
	// keeps Function.prototype so that `f instanceof Function` still holds.
	var disabled = function Function() {
		throw new EvalError("Code generation from strings (eval, Function) is disabled in the FlowScript sandbox");
	};
	defineProperty(disabled, "prototype", { value: Function.prototype, writable: false });
	var lock = function (proto) {
		defineProperty(proto, "constructor", { value: disabled, writable: false, enumerable: false, configurable: false });
	};
	lock(Function.prototype);
	// The generator and async kinds only when the program has such a
	// function: nothing else reaches their prototypes (see features).
	if (lockGenerators) {
		lock(getPrototypeOf(function* () {}));
		lock(getPrototypeOf(async function () {}));
		for (var i = 0; i < extraFunctionPrototypes.length; i++) {
			lock(extraFunctionPrototypes[i]);
		}
	}
	defineProperty(global, "Function", { value: disabled, writable: false, enumerable: false, configurable: false });
	// Only when the program can name them or reach the global object:
	// deleting one first makes it (see features).
	if (deleteGlobals) {
		delete global.eval;
		delete global.GoError; // goja's wrapper for Go errors: a host type, not a language built-in
	}
})
