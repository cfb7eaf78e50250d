package guardrails

import "github.com/dop251/goja/ast"

// scope is one level of JavaScript name resolution: a function body, a
// block, a catch clause, a loop head or a class. Declarations are collected
// when the scope is entered (hoisting), so a reference before its
// declaration still resolves.
type scope struct {
	parent *scope
	// names maps each name declared here to whether a function or class
	// declaration declared it (its .constructor is a function constructor).
	names map[string]bool
}

func newScope(parent *scope) *scope {
	return &scope{parent: parent, names: map[string]bool{}}
}

func (s *scope) declare(name string) { s.names[name] = false }

// declareFunction declares a name that a function or class declaration
// binds. Any other declaration of the same name in the scope wins: a
// reassigned name may hold anything.
func (s *scope) declareFunction(name string) {
	if _, ok := s.names[name]; !ok {
		s.names[name] = true
	}
}

// isFunction reports whether name resolves to a function or class
// declaration (and not to a var, let, const or parameter of that name).
func (s *scope) isFunction(name string) bool {
	for ; s != nil; s = s.parent {
		if fn, ok := s.names[name]; ok {
			return fn
		}
	}
	return false
}

// resolves reports whether name is declared in s or an enclosing scope. The
// outermost scope stands for the sandbox's global object, which declares
// nothing of the host.
func (s *scope) resolves(name string) bool {
	for ; s != nil; s = s.parent {
		if _, ok := s.names[name]; ok {
			return true
		}
	}
	return false
}

// declarePattern declares every name a binding target introduces: an
// identifier, or the leaves of an array or object pattern.
func (s *scope) declarePattern(target ast.Expression) {
	switch t := target.(type) {
	case *ast.Identifier:
		s.declare(t.Name.String())
	case *ast.AssignExpression: // element with a default: target = default
		s.declarePattern(t.Left)
	case *ast.ArrayPattern:
		for _, e := range t.Elements {
			s.declarePattern(e)
		}
		s.declarePattern(t.Rest)
	case *ast.ObjectPattern:
		for _, p := range t.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				s.declare(p.Name.Name.String())
			case *ast.PropertyKeyed:
				s.declarePattern(p.Value)
			}
		}
		s.declarePattern(t.Rest)
	case *ast.Binding:
		s.declarePattern(t.Target)
	}
}

// declareVars declares, in the function scope s, every var of stmts and of
// the blocks nested in them (not of nested functions), and every function
// declared in a nested block (sloppy-mode Annex B hoisting: declaring more
// names only ever removes findings, never invents one).
func (s *scope) declareVars(stmts []ast.Statement) {
	for _, st := range stmts {
		s.declareVarsIn(st)
	}
}

func (s *scope) declareVarsIn(st ast.Statement) {
	switch st := st.(type) {
	case *ast.VariableStatement:
		for _, b := range st.List {
			s.declarePattern(b.Target)
		}
	case *ast.BlockStatement:
		if st == nil {
			return
		}
		s.declareVars(st.List)
		for _, inner := range st.List {
			if fd, ok := inner.(*ast.FunctionDeclaration); ok && fd.Function.Name != nil {
				s.declareFunction(fd.Function.Name.Name.String())
			}
		}
	case *ast.IfStatement:
		s.declareVarsIn(st.Consequent)
		s.declareVarsIn(st.Alternate)
	case *ast.ForStatement:
		if init, ok := st.Initializer.(*ast.ForLoopInitializerVarDeclList); ok {
			for _, b := range init.List {
				s.declarePattern(b.Target)
			}
		}
		s.declareVarsIn(st.Body)
	case *ast.ForInStatement:
		s.declareForInto(st.Into)
		s.declareVarsIn(st.Body)
	case *ast.ForOfStatement:
		s.declareForInto(st.Into)
		s.declareVarsIn(st.Body)
	case *ast.WhileStatement:
		s.declareVarsIn(st.Body)
	case *ast.DoWhileStatement:
		s.declareVarsIn(st.Body)
	case *ast.LabelledStatement:
		s.declareVarsIn(st.Statement)
	case *ast.WithStatement:
		s.declareVarsIn(st.Body)
	case *ast.SwitchStatement:
		for _, c := range st.Body {
			s.declareVars(c.Consequent)
		}
	case *ast.TryStatement:
		s.declareVarsIn(st.Body)
		if st.Catch != nil {
			s.declareVarsIn(st.Catch.Body)
		}
		s.declareVarsIn(st.Finally)
	}
}

func (s *scope) declareForInto(into ast.ForInto) {
	if v, ok := into.(*ast.ForIntoVar); ok {
		s.declarePattern(v.Binding.Target)
	}
}

// declareLexical declares what stmts declare in their own block: let, const,
// class and function declarations.
func (s *scope) declareLexical(stmts []ast.Statement) {
	for _, st := range stmts {
		switch st := st.(type) {
		case *ast.LexicalDeclaration:
			for _, b := range st.List {
				s.declarePattern(b.Target)
			}
		case *ast.ClassDeclaration:
			if st.Class.Name != nil {
				s.declareFunction(st.Class.Name.Name.String())
			}
		case *ast.FunctionDeclaration:
			if st.Function.Name != nil {
				s.declareFunction(st.Function.Name.Name.String())
			}
		}
	}
}
