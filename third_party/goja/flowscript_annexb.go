package goja

import (
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/unistring"
)

// FlowScript patch 58: Annex B.3.3 of ECMAScript, for functions. Outside
// strict mode a function declared in a block (if (…) { function f() {} },
// a try, a switch case) is also a var of the enclosing function, given the
// block's function when the block is entered, so code after the block can
// call it, as V8 does. Upstream kept it in the block: ReferenceError: f is
// not defined.

// hoistBlockFunctions gives the function being compiled a var for each
// function declared in a block of body, where the standard does: not in
// strict mode, not for an async function or a generator, not where a
// let, const or class of the same name in the function or an enclosing
// block (or a parameter) would clash with that var. It marks those
// declarations for compileFunctions, which copies the block's function
// to the var.
func (c *compiler) hoistBlockFunctions(body []ast.Statement) {
	if c.scope.strict {
		return
	}
	varScope := c.scope
	var walk func(list []ast.Statement, lexical map[unistring.String]bool)
	var visit func(st ast.Statement, lexical map[unistring.String]bool)
	block := func(list []ast.Statement, lexical map[unistring.String]bool) {
		inner := lexical
		for _, st := range list {
			switch st := c.extractLabelled(st).(type) {
			case *ast.LexicalDeclaration:
				for _, b := range st.List {
					c.createBindings(b.Target, func(name unistring.String, _ int) {
						inner = with(inner, name)
					})
				}
			case *ast.ClassDeclaration:
				if st.Class.Name != nil {
					inner = with(inner, st.Class.Name.Name)
				}
			}
		}
		for _, st := range list {
			if decl, ok := c.extractLabelled(st).(*ast.FunctionDeclaration); ok {
				c.hoistBlockFunction(decl, varScope, lexical)
			}
		}
		walk(list, inner)
	}
	visit = func(st ast.Statement, lexical map[unistring.String]bool) {
		switch st := c.extractLabelled(st).(type) {
		case *ast.BlockStatement:
			block(st.List, lexical)
		case *ast.IfStatement:
			visit(st.Consequent, lexical)
			if st.Alternate != nil {
				visit(st.Alternate, lexical)
			}
		case *ast.TryStatement:
			block(st.Body.List, lexical)
			if st.Catch != nil {
				catchLexical := lexical
				if st.Catch.Parameter != nil {
					c.createBindings(st.Catch.Parameter, func(name unistring.String, _ int) {
						catchLexical = with(catchLexical, name)
					})
				}
				block(st.Catch.Body.List, catchLexical)
			}
			if st.Finally != nil {
				block(st.Finally.List, lexical)
			}
		case *ast.SwitchStatement:
			var list []ast.Statement
			for _, cs := range st.Body {
				list = append(list, cs.Consequent...)
			}
			block(list, lexical)
		case *ast.ForStatement:
			visit(st.Body, loopLexical(c, st.Initializer, lexical))
		case *ast.ForInStatement:
			visit(st.Body, intoLexical(c, st.Into, lexical))
		case *ast.ForOfStatement:
			visit(st.Body, intoLexical(c, st.Into, lexical))
		case *ast.WhileStatement:
			visit(st.Body, lexical)
		case *ast.DoWhileStatement:
			visit(st.Body, lexical)
		case *ast.WithStatement:
			visit(st.Body, lexical)
		}
	}
	walk = func(list []ast.Statement, lexical map[unistring.String]bool) {
		for _, st := range list {
			visit(st, lexical)
		}
	}
	walk(body, nil)
}

// hoistBlockFunction gives varScope a var for decl's name, where the
// standard allows it, and marks decl.
func (c *compiler) hoistBlockFunction(decl *ast.FunctionDeclaration, varScope *scope, lexical map[unistring.String]bool) {
	fn := decl.Function
	if fn.Async || fn.Generator || fn.Name == nil {
		return
	}
	name := fn.Name.Name
	if name == "arguments" || lexical[name] {
		return
	}
	for s := varScope; s != nil; s = s.outer {
		if b := s.boundNames[name]; b != nil && (b.isArg || !b.isVar) {
			return // a parameter, or a let, const or class of the function
		}
		if s.isFunction() {
			break
		}
	}
	varScope.bindName(name)
	if c.annexB == nil {
		c.annexB = map[*ast.FunctionDeclaration]bool{}
	}
	c.annexB[decl] = true
}

// copyToVar is compileFunctions' part of patch 58: the block's function
// decl, just made, goes to the var of its name in the enclosing function.
func (c *compiler) copyToVar(decl *ast.FunctionDeclaration) {
	name := decl.Function.Name.Name
	blockB := c.scope.boundNames[name]
	var varB *binding
	for s := c.scope.outer; s != nil; s = s.outer {
		if s.variable || s.isFunction() {
			varB = s.boundNames[name]
			break
		}
	}
	if blockB == nil || varB == nil || varB == blockB || !varB.isVar {
		return
	}
	blockB.emitGet()
	varB.emitSetP()
}

func with(set map[unistring.String]bool, name unistring.String) map[unistring.String]bool {
	out := make(map[unistring.String]bool, len(set)+1)
	for k := range set {
		out[k] = true
	}
	out[name] = true
	return out
}

// loopLexical adds the names a for statement's let or const declares.
func loopLexical(c *compiler, init ast.ForLoopInitializer, lexical map[unistring.String]bool) map[unistring.String]bool {
	if d, ok := init.(*ast.ForLoopInitializerLexicalDecl); ok {
		for _, b := range d.LexicalDeclaration.List {
			c.createBindings(b.Target, func(name unistring.String, _ int) {
				lexical = with(lexical, name)
			})
		}
	}
	return lexical
}

// intoLexical adds the names a for-in or for-of's let or const declares.
func intoLexical(c *compiler, into ast.ForInto, lexical map[unistring.String]bool) map[unistring.String]bool {
	if d, ok := into.(*ast.ForDeclaration); ok {
		c.createBindings(d.Target, func(name unistring.String, _ int) {
			lexical = with(lexical, name)
		})
	}
	return lexical
}
