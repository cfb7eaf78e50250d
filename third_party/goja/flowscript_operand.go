package goja

import (
	"unicode"
	"unicode/utf8"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/unistring"
)

// FlowScript patch 42: the TypeErrors of destructuring null or undefined
// and of iterating what is not iterable say, in V8's words, what the
// value was and, where the compiler could name it, the expression it came
// from. Upstream said "Value is not object coercible" and "Cannot convert
// undefined or null to object", which name neither; a script whose API
// field was missing read `for (const x of data.items)` fail with a
// message about conversion to object.

// operandText is the expression e as V8 names it in such an error: an
// identifier, `this` or a chain of members of them (o.b, o[0], o[k],
// o.b c for o['b c']), with calls written f(...) when calls is set; ""
// for anything else, which the error then names by its value.
func operandText(e ast.Expression, calls bool) string {
	switch e := e.(type) {
	case *ast.Identifier:
		return e.Name.String()
	case *ast.ThisExpression:
		return "this"
	case *ast.NullLiteral:
		return "null"
	case *ast.DotExpression:
		if left, optional := objectText(e.Left, calls); optional {
			return left + e.Identifier.Name.String()
		} else if left != "" {
			return left + "." + e.Identifier.Name.String()
		}
	case *ast.BracketExpression:
		left, optional := objectText(e.Left, calls)
		if left == "" {
			return ""
		}
		switch m := e.Member.(type) {
		case *ast.StringLiteral:
			if optional {
				return left + m.Value.String()
			}
			return left + "." + m.Value.String()
		case *ast.NumberLiteral:
			return left + "[" + m.Literal + "]"
		case *ast.Identifier:
			return left + "[" + m.Name.String() + "]"
		}
	case *ast.Optional:
		// FlowScript patch 136: the callee of an optional call (o.f?.())
		// is named without its ?., as V8 names it.
		if calls {
			return operandText(e.Expression, calls)
		}
	case *ast.CallExpression:
		if callee := operandText(e.Callee, calls); calls && callee != "" {
			return callee + "(...)"
		}
	}
	return ""
}

// objectText is the operand text of a member's object. In a callee (calls
// set), an optional one reads "o?." (FlowScript patch 136), as V8 names
// o?.f, o?.[0] and o.a?.f when they are no function; elsewhere V8 calls an
// optional chain "(intermediate value)", so it is not named.
func objectText(e ast.Expression, calls bool) (text string, optional bool) {
	opt, ok := e.(*ast.Optional)
	if !ok {
		return operandText(e, calls), false
	}
	if !calls {
		return "", false
	}
	if t := operandText(opt.Expression, calls); t != "" {
		return t + "?.", true
	}
	return "", false
}

// iteratedText is the operand text of an iterated expression e: a call's
// is what V8 says of it, "f is not a function or its return value" (is
// not iterable).
func iteratedText(e ast.Expression) string {
	if call, ok := e.(*ast.CallExpression); ok {
		if callee := operandText(call.Callee, false); callee != "" {
			return callee + " is not a function or its return value"
		}
		return ""
	}
	return operandText(e, false)
}

// firstPatternKey is the name of the first property an object pattern
// reads, when it is written as a name or a literal; "" otherwise.
func firstPatternKey(p *ast.ObjectPattern) string {
	if len(p.Properties) == 0 {
		return ""
	}
	switch prop := p.Properties[0].(type) {
	case *ast.PropertyShort:
		return prop.Name.Name.String()
	case *ast.PropertyKeyed:
		if prop.Computed {
			return ""
		}
		switch k := prop.Key.(type) {
		case *ast.Identifier:
			return k.Name.String()
		case *ast.StringLiteral:
			return k.Value.String()
		case *ast.NumberLiteral:
			return k.Literal
		}
	}
	return ""
}

// nothingName is "null" for null and "undefined" otherwise.
func nothingName(v Value) string {
	if v == _null {
		return "null"
	}
	return "undefined"
}

// cannotDestructure is the TypeError of an object pattern given null or
// undefined: prop is the first property it reads ("" when none is named)
// and from the expression the value came from ("" when unknown).
func (r *Runtime) cannotDestructure(v Value, prop, from string) *Object {
	what := nothingName(v)
	if from == "" {
		from = what
	}
	if prop == "" {
		return r.NewTypeError("Cannot destructure '%s' as it is %s.", from, what)
	}
	return r.NewTypeError("Cannot destructure property '%s' of '%s' as it is %s.", prop, from, what)
}

// notIterable is the TypeError of iterating v, which has no
// Symbol.iterator method; from is the expression v came from ("" when
// unknown, and the error then names v by its type and value, as V8 does:
// "object null", "number 5", "object" or "function" for an object).
func (r *Runtime) notIterable(v Value, from string) *Object {
	if from != "" {
		return r.NewTypeError("%s is not iterable", from)
	}
	const tail = "is not iterable (cannot read property Symbol(Symbol.iterator))"
	switch v.(type) {
	case valueUndefined:
		return r.NewTypeError("undefined %s", tail)
	case *Object:
		return r.NewTypeError("%s %s", typeOf(v), tail)
	}
	return r.NewTypeError("%s %s %s", typeOf(v), keyText(v), tail)
}

// keyText is v as V8 quotes a property key or a primitive in a message: a
// symbol as Symbol(description), anything else as its string.
func keyText(v Value) string {
	if sym, ok := v.(*Symbol); ok {
		return sym.descriptiveString().String()
	}
	return v.String()
}

// takeOperand returns the operand text a declaration set for the pattern
// it is about to destructure, and clears it, so that a pattern nested in
// that one does not take it as its own.
func (c *compiler) takeOperand() string {
	from := c.patternOperand
	c.patternOperand = ""
	return from
}

// FlowScript patch 44: calling what is not a function, constructing what
// is not a constructor and setting a property of null or undefined throw
// V8's TypeErrors, which name the callee as written (nome.toUppercase is
// not a function) or the value, and the property. Upstream said "Object
// has no member 'toUppercase'", "Value is not an object: undefined",
// "Not a function: [object Object]" and "Cannot convert undefined or null
// to object".

// valueText is v as V8 writes a callee it has no expression for: a
// primitive as its string, an object as #<Class>.
func valueText(v Value) string {
	switch v := v.(type) {
	case nil:
		return "undefined"
	case *Object:
		return "#<" + v.self.className() + ">"
	case *Symbol:
		return keyText(v)
	case memberUnresolved:
		return "(intermediate value)." + v.ref.String()
	}
	return v.String()
}

// notAFunction is the TypeError of calling v, which is no function; from
// is the callee as written ("" when unknown).
func (r *Runtime) notAFunction(v Value, from string) *Object {
	if from == "" {
		from = valueText(v)
	}
	return r.NewTypeError("%s is not a function", from)
}

// setBase is v.ToObject for setting v's property name, with V8's
// TypeError for null and undefined. name is typed, not an interface, so
// the common path boxes nothing.
func (r *Runtime) setBase(v Value, name unistring.String) *Object {
	if o, ok := v.(*Object); ok {
		return o
	}
	if v == _undefined || v == _null {
		r.cannotSet(v, name.String())
	}
	return v.ToObject(r)
}

// setBaseKey is setBase for a computed key.
func (r *Runtime) setBaseKey(v Value, key Value) *Object {
	if o, ok := v.(*Object); ok {
		return o
	}
	if v == _undefined || v == _null {
		name := ""
		if key != nil {
			name = keyText(key)
		}
		r.cannotSet(v, name)
	}
	return v.ToObject(r)
}

func (r *Runtime) cannotSet(v Value, name string) {
	panic(r.NewTypeError("Cannot set properties of %s (setting '%s')", nothingName(v), name))
}

// callOf is call for a callee the compiler can name: a callee that is
// not a function throws "<callee> is not a function".
type callOf struct {
	n    uint32
	from string
}

func (c callOf) exec(vm *vm) {
	n := int(c.n)
	v := vm.stack[vm.sp-n-1] // callee
	obj, ok := v.(*Object)
	if !ok {
		if u, ok := v.(valueUnresolved); ok {
			u.throw()
		}
		panic(vm.r.notAFunction(v, c.from))
	}
	vm.calleeText = c.from
	obj.self.vmCall(vm, n)
	vm.calleeText = ""
}

// newOf is _new for a constructor the compiler can name (from; _new
// passes "" and the error names the value).
type newOf struct {
	n    uint32
	from string
}

func (c newOf) exec(vm *vm) {
	sp := vm.sp - int(c.n)
	var ctor func(args []Value, newTarget *Object) *Object
	if obj, ok := vm.stack[sp-1].(*Object); ok {
		ctor = obj.self.assertConstructor()
	}
	if ctor == nil {
		from := c.from
		if from == "" {
			from = valueText(vm.stack[sp-1])
		}
		panic(vm.r.NewTypeError("%s is not a constructor", from))
	}
	vm.stack[sp-1] = ctor(vm.stack[sp:vm.sp], nil)
	vm.sp = sp
	vm.pc++
}

// FlowScript patch 54: reading or writing a let, const or class binding
// before its declaration ran says which one, as V8 does: Cannot access
// 'horario' before initialization. Upstream said "a variable".

// accessBeforeInit is that ReferenceError for the binding the current
// instruction uses: the identifier the source has at the instruction's
// position, or upstream's words when there is none there.
func (vm *vm) accessBeforeInit() referenceError {
	if name := vm.identifierHere(); name != "" {
		return referenceError("Cannot access '" + name + "' before initialization")
	}
	return errAccessBeforeInit
}

// identifierHere is the identifier that starts at the source position of
// the current instruction, or "" (a member name after a '.', or no
// identifier there).
func (vm *vm) identifierHere() string {
	prg := vm.prg
	if prg == nil || prg.src == nil {
		return ""
	}
	src := prg.src.Source()
	off := prg.sourceOffset(vm.pc)
	if off < 0 || off >= len(src) {
		return ""
	}
	if off > 0 {
		if before, _ := utf8.DecodeLastRuneInString(src[:off]); before == '.' || identifierPart(before) {
			return ""
		}
	}
	end := off
	for end < len(src) {
		r, size := utf8.DecodeRuneInString(src[end:])
		if !identifierPart(r) || (end == off && unicode.IsDigit(r)) {
			break
		}
		end += size
	}
	return src[off:end]
}

func identifierPart(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}
