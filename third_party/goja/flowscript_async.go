package goja

// IsAsyncFunction reports whether calling v runs an async function's body:
// v is one (declared, an arrow or a method), or a bound function or a Proxy
// of one (FlowScript patch 150). It reads the kind of each object, not its
// prototype, which a script can change, and runs nothing of the script's.
// The sandbox refuses an async execute with it before calling it.
func IsAsyncFunction(v Value) bool {
	o, _ := v.(*Object)
	for depth := 0; o != nil && depth < 1000; depth++ {
		switch f := o.self.(type) {
		case *asyncFuncObject, *asyncArrowFuncObject, *asyncMethodFuncObject:
			return true
		case *boundFuncObject:
			o = f.wrapped
		case *proxyObject:
			o = f.target
		default:
			return false
		}
	}
	return false
}
