// Runs first in every fresh runtime, before the author's program. It removes
// the ways to generate code from strings and the engine's one host global,
// and returns the result serializer and the error describer, which hold
// their own references to the built-ins they use so that nothing the script
// does to globals changes how its result is read. It touches as few
// built-ins as it can: each one it touches is materialized in every runtime,
// and that cost is paid per job.
(function (global, asyncMarker, extraFunctionPrototypes) {
	"use strict";
	var getPrototypeOf = Object.getPrototypeOf;
	var defineProperty = Object.defineProperty;
	var stringify = JSON.stringify;

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
	lock(getPrototypeOf(function* () {}));
	lock(getPrototypeOf(async function () {}));
	for (var i = 0; i < extraFunctionPrototypes.length; i++) {
		lock(extraFunctionPrototypes[i]);
	}
	defineProperty(global, "Function", { value: disabled, writable: false, enumerable: false, configurable: false });
	delete global.eval;
	delete global.GoError; // goja's wrapper for Go errors: a host type, not a language built-in

	// The serializer of DESIGN.md §3: string as is; object or array through
	// JSON.stringify; other primitives as their string; undefined and null
	// as "". A thenable is an async result, refused (the Go side refuses
	// native Promises before calling this).
	var serialize = function (value) {
		if (value === undefined || value === null) return "";
		var type = typeof value;
		if (type === "string") return value;
		if (type === "object" || type === "function") {
			if (typeof value.then === "function") throw asyncMarker;
			var json = stringify(value);
			return json === undefined ? "" : json;
		}
		return type === "symbol" ? value.toString() : "" + value;
	};

	// describe reads a thrown value as "Name: message" (an Error or anything
	// shaped like one) or as its string form, for the error report. It runs
	// under the same deadline as the script.
	var describe = function (thrown) {
		try {
			if (thrown !== null && typeof thrown === "object" && "message" in thrown) {
				var name = "" + thrown.name, message = "" + thrown.message;
				return message === "" ? name : name + ": " + message;
			}
			return typeof thrown === "symbol" ? thrown.toString() : "" + thrown;
		} catch (e) {
			return "Uncaught exception (its message could not be read)";
		}
	};

	return [serialize, describe];
})
