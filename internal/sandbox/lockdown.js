// The thrower that stands in for the Function constructor and its async and
// generator siblings, which all compile strings. newVMFor (runtime.go) puts
// it everywhere they were reachable, in Go: it keeps Function.prototype as
// its prototype property, so that `f instanceof Function` still holds.
(function Function() {
	"use strict";
	throw new EvalError("Code generation from strings (eval, Function) is disabled in the FlowScript sandbox");
})
