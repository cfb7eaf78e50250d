package guardrails

import (
	"slices"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"

	"github.com/flowscript/flowscript/internal/jsident"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// checker walks one parsed source and collects its findings.
type checker struct {
	file *file.File
	// lineShift is how many lines the wrapper adds before the source.
	lineShift int
	// asyncExecute holds the functions the author's top-level execute is
	// bound to: async there is an error, elsewhere a warning.
	asyncExecute map[ast.Node]bool
	// source is the author's text, for the columns (see sandbox.Column).
	source string
	// inputsUnknown: the source is checked without its inputs (a template
	// at save time), so a free name may yet be an input's.
	inputsUnknown bool
	findings      []Finding
	uses          uses
}

func (c *checker) report(idx file.Idx, code Code, sev Severity, name, msg string) {
	if len(c.findings) >= MaxFindings {
		return
	}
	pos := c.file.Position(int(idx) - c.file.Base())
	c.findings = append(c.findings, Finding{
		Code: code, Severity: sev, Name: name, Message: msg,
		Line: pos.Line - c.lineShift, Column: sandbox.Column(c.source, pos.Line-c.lineShift, pos.Column),
	})
}

// ---- statements ----

func (c *checker) stmts(s *scope, list []ast.Statement) {
	for _, st := range list {
		c.stmt(s, st)
	}
}

func (c *checker) block(s *scope, b *ast.BlockStatement) {
	if b == nil {
		return
	}
	bs := newScope(s)
	bs.declareLexical(b.List)
	c.stmts(bs, b.List)
}

func (c *checker) stmt(s *scope, st ast.Statement) {
	switch st := st.(type) {
	case *ast.BlockStatement:
		c.block(s, st)
	case *ast.ExpressionStatement:
		c.expr(s, st.Expression)
	case *ast.VariableStatement:
		c.bindings(s, st.List)
	case *ast.LexicalDeclaration:
		c.bindings(s, st.List)
	case *ast.FunctionDeclaration:
		c.function(s, st.Function, false)
	case *ast.ClassDeclaration:
		c.class(s, st.Class)
	case *ast.IfStatement:
		c.expr(s, st.Test)
		c.stmt(s, st.Consequent)
		c.stmt(s, st.Alternate)
	case *ast.WhileStatement:
		c.expr(s, st.Test)
		c.stmt(s, st.Body)
	case *ast.DoWhileStatement:
		c.stmt(s, st.Body)
		c.expr(s, st.Test)
	case *ast.WithStatement:
		c.expr(s, st.Object)
		c.stmt(s, st.Body)
	case *ast.LabelledStatement:
		c.stmt(s, st.Statement)
	case *ast.ReturnStatement:
		c.expr(s, st.Argument)
	case *ast.ThrowStatement:
		c.expr(s, st.Argument)
	case *ast.SwitchStatement:
		c.expr(s, st.Discriminant)
		bs := newScope(s)
		for _, cs := range st.Body {
			bs.declareLexical(cs.Consequent)
		}
		for _, cs := range st.Body {
			c.expr(bs, cs.Test)
			c.stmts(bs, cs.Consequent)
		}
	case *ast.TryStatement:
		c.block(s, st.Body)
		if st.Catch != nil {
			cs := newScope(s)
			if st.Catch.Parameter != nil {
				cs.declarePattern(st.Catch.Parameter)
				c.patternExprs(cs, st.Catch.Parameter)
			}
			c.block(cs, st.Catch.Body)
		}
		c.block(s, st.Finally)
	case *ast.ForStatement:
		ls := newScope(s)
		switch init := st.Initializer.(type) {
		case *ast.ForLoopInitializerLexicalDecl:
			for _, b := range init.LexicalDeclaration.List {
				ls.declarePattern(b.Target)
			}
			c.bindings(ls, init.LexicalDeclaration.List)
		case *ast.ForLoopInitializerVarDeclList:
			c.bindings(ls, init.List)
		case *ast.ForLoopInitializerExpression:
			c.expr(ls, init.Expression)
		}
		c.expr(ls, st.Test)
		c.expr(ls, st.Update)
		c.stmt(ls, st.Body)
	case *ast.ForInStatement:
		c.forInto(s, st.Into, st.Source, st.Body)
	case *ast.ForOfStatement:
		c.forInto(s, st.Into, st.Source, st.Body)
	}
	// BranchStatement, DebuggerStatement, EmptyStatement, BadStatement:
	// nothing to resolve (labels are not references).
}

func (c *checker) forInto(s *scope, into ast.ForInto, source ast.Expression, body ast.Statement) {
	ls := newScope(s)
	switch into := into.(type) {
	case *ast.ForDeclaration:
		ls.declarePattern(into.Target)
		c.patternExprs(ls, into.Target)
	case *ast.ForIntoVar:
		c.bindings(ls, []*ast.Binding{into.Binding})
	case *ast.ForIntoExpression:
		c.assignTarget(ls, into.Expression)
	}
	c.expr(ls, source)
	c.stmt(ls, body)
}

// bindings visits the defaults and initializers of declarations whose
// names are already declared in s.
func (c *checker) bindings(s *scope, list []*ast.Binding) {
	for _, b := range list {
		c.patternExprs(s, b.Target)
		c.expr(s, b.Initializer)
	}
}

// patternExprs visits the expressions inside a binding pattern (defaults
// and computed keys), never its bound names.
func (c *checker) patternExprs(s *scope, target ast.Expression) {
	switch t := target.(type) {
	case *ast.AssignExpression:
		c.patternExprs(s, t.Left)
		c.expr(s, t.Right)
	case *ast.ArrayPattern:
		for _, e := range t.Elements {
			c.patternExprs(s, e)
		}
		c.patternExprs(s, t.Rest)
	case *ast.ObjectPattern:
		for _, p := range t.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				c.expr(s, p.Initializer)
			case *ast.PropertyKeyed:
				if p.Computed {
					c.expr(s, p.Key)
				}
				c.patternExprs(s, p.Value)
			}
		}
		c.patternExprs(s, t.Rest)
	case *ast.Binding:
		c.patternExprs(s, t.Target)
		c.expr(s, t.Initializer)
	}
}

// assignTarget visits the target of a destructuring assignment, where a
// bare name is a reference being written.
func (c *checker) assignTarget(s *scope, target ast.Expression) {
	switch t := target.(type) {
	case *ast.ArrayPattern:
		for _, e := range t.Elements {
			c.assignTarget(s, e)
		}
		c.assignTarget(s, t.Rest)
	case *ast.ObjectPattern:
		for _, p := range t.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				c.ref(s, &p.Name)
				c.expr(s, p.Initializer)
			case *ast.PropertyKeyed:
				if p.Computed {
					c.expr(s, p.Key)
				}
				c.assignTarget(s, p.Value)
			}
		}
		c.assignTarget(s, t.Rest)
	case *ast.AssignExpression: // element with a default
		c.assignTarget(s, t.Left)
		c.expr(s, t.Right)
	default:
		c.expr(s, target)
	}
}

// ---- expressions ----

func (c *checker) exprs(s *scope, list []ast.Expression) {
	for _, e := range list {
		c.expr(s, e)
	}
}

func (c *checker) expr(s *scope, e ast.Expression) {
	switch e := e.(type) {
	case *ast.Identifier:
		c.ref(s, e)
	case *ast.ArrayLiteral:
		c.exprs(s, e.Value)
	case *ast.ArrayPattern, *ast.ObjectPattern:
		c.assignTarget(s, e)
	case *ast.AssignExpression:
		if e.Operator == token.ASSIGN {
			c.assignTarget(s, e.Left)
		} else {
			c.expr(s, e.Left)
		}
		c.expr(s, e.Right)
	case *ast.AwaitExpression:
		c.expr(s, e.Argument)
	case *ast.YieldExpression:
		c.expr(s, e.Argument)
	case *ast.BinaryExpression:
		c.expr(s, e.Left)
		c.expr(s, e.Right)
	case *ast.BracketExpression:
		if capability, at := capabilityOf(s, e); capability != "" { // globalThis['kv']
			c.capabilityRef(capability, at)
			return
		}
		if lit, ok := e.Member.(*ast.StringLiteral); ok {
			c.globalThisMember(s, e.Left, lit.Value.String(), lit.Idx)
			c.consoleMember(s, e.Left, lit.Value.String(), lit.Idx)
		}
		c.expr(s, e.Left)
		c.expr(s, e.Member)
	case *ast.DotExpression:
		if capability, at := capabilityOf(s, e); capability != "" { // globalThis.kv
			c.capabilityRef(capability, at)
			return
		}
		c.globalThisMember(s, e.Left, e.Identifier.Name.String(), e.Identifier.Idx)
		c.consoleMember(s, e.Left, e.Identifier.Name.String(), e.Identifier.Idx)
		c.expr(s, e.Left)
	case *ast.PrivateDotExpression:
		c.expr(s, e.Left)
	case *ast.CallExpression:
		if c.apiCall(s, e) { // api.get('crm', ...): the callee is api's own
			c.exprs(s, e.ArgumentList)
			return
		}
		c.functionConstructor(s, e.Callee)
		c.functionPassed(s, e.ArgumentList)
		c.expr(s, e.Callee)
		c.exprs(s, e.ArgumentList)
	case *ast.NewExpression:
		c.functionConstructor(s, e.Callee)
		c.functionPassed(s, e.ArgumentList)
		c.expr(s, e.Callee)
		c.exprs(s, e.ArgumentList)
	case *ast.ConditionalExpression:
		c.expr(s, e.Test)
		c.expr(s, e.Consequent)
		c.expr(s, e.Alternate)
	case *ast.OptionalChain:
		c.expr(s, e.Expression)
	case *ast.Optional:
		c.expr(s, e.Expression)
	case *ast.FunctionLiteral:
		c.function(s, e, true)
	case *ast.ArrowFunctionLiteral:
		c.arrow(s, e)
	case *ast.ClassLiteral:
		c.class(s, e)
	case *ast.ObjectLiteral:
		for _, p := range e.Value {
			c.property(s, p)
		}
	case *ast.SequenceExpression:
		c.exprs(s, e.Sequence)
	case *ast.SpreadElement:
		c.expr(s, e.Expression)
	case *ast.TemplateLiteral:
		c.expr(s, e.Tag)
		c.exprs(s, e.Expressions)
	case *ast.UnaryExpression:
		if e.Operator == token.TYPEOF {
			if _, bare := e.Operand.(*ast.Identifier); bare {
				return // typeof name is a feature test: it never throws
			}
			if capability, _ := capabilityOf(s, e.Operand); capability != "" {
				return // typeof globalThis.kv: a feature test, not a use
			}
		}
		c.expr(s, e.Operand)
	case *ast.PropertyShort, *ast.PropertyKeyed:
		c.property(s, e.(ast.Property))
	case *ast.Binding:
		c.patternExprs(s, e)
	}
	// Literals, this, super, new.target and bad expressions resolve nothing.
}

func (c *checker) property(s *scope, p ast.Property) {
	switch p := p.(type) {
	case *ast.PropertyShort: // {process} reads the variable process
		c.ref(s, &p.Name)
		c.expr(s, p.Initializer)
	case *ast.PropertyKeyed:
		if p.Computed {
			c.expr(s, p.Key)
		}
		if fn, ok := p.Value.(*ast.FunctionLiteral); ok && p.Kind != ast.PropertyKindValue {
			c.function(s, fn, false) // a method does not bind its own name
			return
		}
		c.expr(s, p.Value)
	case *ast.SpreadElement:
		c.expr(s, p.Expression)
	}
}

// ref reports a free reference to a host global, and records one to a
// capability's global.
func (c *checker) ref(s *scope, id *ast.Identifier) {
	name := id.Name.String()
	if s.resolves(name) {
		return
	}
	if r, ok := hostGlobals[name]; ok {
		msg := r.message
		if c.inputsUnknown && jsident.Check(name) == nil {
			// A job may pass an input of that name, which a body-form
			// template cannot declare: the function form can.
			msg += "; if a job gives the script an input named " + name + ", declare the job's inputs as execute's parameters, in the job's order: function execute(" + name + ") { … } for that input alone"
		}
		c.report(id.Idx, r.code, SeverityError, name, msg)
	}
	if capability, ok := capabilityGlobals[name]; ok {
		c.capabilityRef(capability, id.Idx)
	}
}

// ---- functions and classes ----

func (c *checker) function(s *scope, fn *ast.FunctionLiteral, isExpr bool) {
	if fn == nil {
		return
	}
	c.async(fn, fn.Async, fn.Function)
	outer := s
	if isExpr && fn.Name != nil { // a named function expression sees its name
		outer = newScope(s)
		outer.declare(fn.Name.Name.String())
	}
	fs := newScope(outer)
	fs.declare("arguments")
	c.params(fs, fn.ParameterList)
	if fn.Body != nil {
		fs.declareVars(fn.Body.List)
		fs.declareLexical(fn.Body.List)
		c.stmts(fs, fn.Body.List)
	}
}

func (c *checker) arrow(s *scope, fn *ast.ArrowFunctionLiteral) {
	c.async(fn, fn.Async, fn.Start)
	fs := newScope(s)
	c.params(fs, fn.ParameterList)
	switch body := fn.Body.(type) {
	case *ast.BlockStatement:
		fs.declareVars(body.List)
		fs.declareLexical(body.List)
		c.stmts(fs, body.List)
	case *ast.ExpressionBody:
		c.expr(fs, body.Expression)
	}
}

func (c *checker) params(fs *scope, pl *ast.ParameterList) {
	if pl == nil {
		return
	}
	for _, b := range pl.List {
		fs.declarePattern(b.Target)
	}
	fs.declarePattern(pl.Rest)
	c.bindings(fs, pl.List)
	c.patternExprs(fs, pl.Rest)
}

func (c *checker) async(fn ast.Node, async bool, at file.Idx) {
	if !async {
		return
	}
	if c.asyncExecute[fn] {
		c.report(at, CodeAsyncExecute, SeverityError, "execute", msgAsyncExecute)
		return
	}
	c.report(at, CodeAsyncFunction, SeverityWarning, "async", msgAsyncFunction)
}

func (c *checker) class(s *scope, cl *ast.ClassLiteral) {
	if cl == nil {
		return
	}
	c.expr(s, cl.SuperClass)
	cs := newScope(s)
	if cl.Name != nil {
		cs.declare(cl.Name.Name.String())
	}
	for _, el := range cl.Body {
		switch el := el.(type) {
		case *ast.FieldDefinition:
			if el.Computed {
				c.expr(cs, el.Key)
			}
			c.expr(cs, el.Initializer)
		case *ast.MethodDefinition:
			if el.Computed {
				c.expr(cs, el.Key)
			}
			c.function(cs, el.Body, false)
		case *ast.ClassStaticBlock:
			if el.Block != nil {
				bs := newScope(cs)
				bs.declareVars(el.Block.List)
				bs.declareLexical(el.Block.List)
				c.stmts(bs, el.Block.List)
			}
		}
	}
}

// ---- special forms ----

// functionConstructor reports a call or construction that reaches the
// Function constructor: Function(...), Function.call/apply/bind(...), and
// .constructor of a function, class or of another .constructor.
func (c *checker) functionConstructor(s *scope, callee ast.Expression) {
	switch e := callee.(type) {
	case *ast.Identifier:
		if e.Name == "Function" && !s.resolves("Function") {
			c.report(e.Idx, CodeFunctionConstructor, SeverityError, "Function", msgFunctionConstructor)
		}
	case *ast.DotExpression:
		if id, ok := e.Left.(*ast.Identifier); ok && id.Name == "Function" && !s.resolves("Function") {
			switch e.Identifier.Name {
			case "call", "apply", "bind":
				c.report(id.Idx, CodeFunctionConstructor, SeverityError, "Function", msgFunctionConstructor)
			}
			return
		}
		if id, ok := e.Left.(*ast.Identifier); ok && id.Name == "globalThis" && !s.resolves("globalThis") && e.Identifier.Name == "Function" {
			c.report(e.Identifier.Idx, CodeFunctionConstructor, SeverityError, "Function", msgFunctionConstructor)
			return
		}
		if e.Identifier.Name == "constructor" && reachesFunction(s, e.Left) {
			c.report(e.Identifier.Idx, CodeFunctionConstructor, SeverityError, "Function", msgFunctionConstructor)
		}
	case *ast.BracketExpression:
		if lit, ok := e.Member.(*ast.StringLiteral); ok && lit.Value == "constructor" && reachesFunction(s, e.Left) {
			c.report(lit.Idx, CodeFunctionConstructor, SeverityError, "Function", msgFunctionConstructor)
		}
	}
}

// functionPassed reports the Function constructor handed to a call as a
// value (Reflect.construct(Function, [...]), [].map.call(x, Function)).
func (c *checker) functionPassed(s *scope, args []ast.Expression) {
	for _, a := range args {
		if id, ok := a.(*ast.Identifier); ok && id.Name == "Function" && !s.resolves("Function") {
			c.report(id.Idx, CodeFunctionConstructor, SeverityError, "Function", msgFunctionConstructor)
		}
	}
}

// builtinNamespaces are the globals whose members a script reads are
// nearly all functions (Math.max, JSON.parse, Object.keys): their
// .constructor is Function.
var builtinNamespaces = map[string]bool{
	"Math": true, "JSON": true, "Object": true, "Array": true, "String": true, "Number": true,
	"Reflect": true, "Date": true, "Promise": true, "Symbol": true, "Map": true, "Set": true,
	"RegExp": true, "Boolean": true, "BigInt": true, "Error": true,
}

// reachesFunction reports whether reading .constructor of e yields a
// function constructor: e is a function or class (a literal, a name a
// function or class declaration binds, such as execute, Function itself
// or Function.prototype), a member of a built-in namespace (Math.max), or
// itself .constructor.
func reachesFunction(s *scope, e ast.Expression) bool {
	switch e := e.(type) {
	case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral, *ast.ClassLiteral:
		return true
	case *ast.Identifier:
		name := e.Name.String()
		return s.isFunction(name) || name == "Function" && !s.resolves(name)
	case *ast.DotExpression:
		if e.Identifier.Name == "constructor" {
			return true
		}
		id, ok := e.Left.(*ast.Identifier)
		if !ok || s.resolves(id.Name.String()) {
			return false
		}
		return id.Name == "Function" && e.Identifier.Name == "prototype" || builtinNamespaces[id.Name.String()]
	case *ast.BracketExpression:
		lit, ok := e.Member.(*ast.StringLiteral)
		return ok && lit.Value == "constructor"
	}
	return false
}

// nodeConsole are the methods of Node's and the browsers' console.
var nodeConsole = []string{"log", "info", "warn", "error", "debug", "dir", "dirxml", "table", "trace",
	"assert", "count", "countReset", "group", "groupCollapsed", "groupEnd", "time", "timeEnd", "timeLog",
	"timeStamp", "profile", "profileEnd", "clear"}

// consoleMethods are the methods of nodeConsole the sandbox's console does
// not have: calling one throws a TypeError.
var consoleMethods = func() map[string]bool {
	m := map[string]bool{}
	has := sandbox.ConsoleMethods()
	for _, name := range nodeConsole {
		if !slices.Contains(has, name) {
			m[name] = true
		}
	}
	return m
}()

// consoleMember reports console.clear and the other console methods the
// sandbox does not offer.
func (c *checker) consoleMember(s *scope, obj ast.Expression, member string, at file.Idx) {
	if id, ok := obj.(*ast.Identifier); ok && id.Name == "console" && !s.resolves("console") && consoleMethods[member] {
		c.report(at, CodeConsole, SeverityError, "console."+member, "console."+member+
			" is not available in the sandbox's console (it has log, info, warn, error, debug and Node's dir, table, trace, assert, count, time and group); use console.log")
	}
}

// globalThisMember warns about globalThis.<host global>: it reads
// undefined in the sandbox.
func (c *checker) globalThisMember(s *scope, obj ast.Expression, member string, at file.Idx) {
	id, ok := obj.(*ast.Identifier)
	if !ok || id.Name != "globalThis" || s.resolves("globalThis") {
		return
	}
	if _, host := hostGlobals[member]; host {
		c.report(at, CodeGlobalThisHost, SeverityWarning, member, globalThisMessage(member))
	}
}
