package sandbox

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"

	"github.com/flowscript/flowscript/internal/jsident"
)

// MaxSyntaxDepth bounds how deep a parsed program's tree may be (each node
// inside another counts one level: a long chain a + b + c + … is as deep as
// it is long). goja's compiler, and the guardrails' walk, recurse once per
// level in Go; a tree within this bound compiles in a few milliseconds and
// well inside a worker's 8 MB stack (measured: 3,000 levels of every kind
// of node). A deeper one is refused as a syntax error at the node where it
// goes one level too deep, before anything recurses over it.
const MaxSyntaxDepth = 2000

var (
	astPkg  = reflect.TypeFor[ast.Program]().PkgPath()
	idxType = reflect.TypeFor[file.Idx]()
	// declType is skipped by the walk below its own position: a function's
	// DeclarationList repeats the bindings its var statements hold.
	declType = reflect.TypeFor[ast.VariableDeclaration]()
)

// nodePlan says which fields of an AST struct type are positions and which
// may hold more of the tree.
type nodePlan struct {
	positions []int
	children  []int
}

var nodePlans sync.Map // reflect.Type → *nodePlan

func planFor(t reflect.Type) *nodePlan {
	if p, ok := nodePlans.Load(t); ok {
		return p.(*nodePlan)
	}
	p := &nodePlan{}
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case !f.IsExported():
		case f.Type == idxType:
			p.positions = append(p.positions, i)
		case t == declType:
			// Only Var, above: List is walked where the statement holds it.
		case mayHoldNodes(f.Type):
			p.children = append(p.children, i)
		}
	}
	nodePlans.Store(t, p)
	return p
}

// mayHoldNodes reports whether a field of type t can lead to AST nodes.
func mayHoldNodes(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return t.PkgPath() == astPkg // ast.Expression, ast.Statement, …
	case reflect.Pointer, reflect.Slice:
		return mayHoldNodes(t.Elem())
	case reflect.Struct:
		return t.PkgPath() == astPkg
	}
	return false
}

// walkItem is a value still to visit and its depth in the tree.
type walkItem struct {
	v     reflect.Value
	depth int
}

// rebase walks the tree under root without recursion (its depth is the
// author's to choose), moves every position by delta and returns the first
// node deeper than maxDepth, if any. Depth counts the pointers followed from
// root. The positions of the node it returns, and of the nodes not visited
// after it, are left as they were.
func rebase(root ast.Node, delta file.Idx, maxDepth int, feat seer) ast.Node {
	stack := []walkItem{{reflect.ValueOf(root), 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		v := it.v
		switch v.Kind() {
		case reflect.Interface:
			if !v.IsNil() {
				stack = append(stack, walkItem{v.Elem(), it.depth})
			}
		case reflect.Pointer:
			if v.IsNil() || v.Type().Elem().PkgPath() != astPkg {
				continue
			}
			if it.depth >= maxDepth {
				if n, ok := v.Interface().(ast.Node); ok {
					return n
				}
			}
			if feat != nil {
				feat.see(v.Interface())
			}
			stack = append(stack, walkItem{v.Elem(), it.depth + 1})
		case reflect.Slice:
			for i := v.Len() - 1; i >= 0; i-- {
				stack = append(stack, walkItem{v.Index(i), it.depth})
			}
		case reflect.Struct:
			plan := planFor(v.Type())
			for _, i := range plan.positions {
				if f := v.Field(i); delta != 0 && f.CanSet() {
					f.SetInt(f.Int() + int64(delta))
				}
			}
			for j := len(plan.children) - 1; j >= 0; j-- {
				stack = append(stack, walkItem{v.Field(plan.children[j]), it.depth})
			}
		}
	}
	return nil
}

// TooDeep returns the first node of the tree under root that is deeper than
// MaxSyntaxDepth, or nil. It walks without recursion, so any tree the
// parser built can be checked before something recursive walks it.
func TooDeep(root ast.Node) ast.Node { return rebase(root, 0, MaxSyntaxDepth, nil) }

// features are what a program may use of what a fresh runtime is given,
// read from its tree. A runtime sets up only what the program can reach
// (see newVM and installHost): every piece costs time on every run. Each
// flag errs on the side of true: a false one must mean that leaving the
// piece out changes nothing the program can do.
//
// Naming is not the only way to the global object: any undeclared name
// is looked up on it, through its prototype, Object.prototype, so an
// accessor defined there with a built-in that returns its receiver
// (Object.prototype.valueOf) as getter hands the script the global
// object. So what the lockdown takes away (eval, GoError) is taken from
// every runtime, and the flags below only decide what a runtime need not
// add or prepare.
type features struct {
	// host: the program names a host global (console, capabilities, api,
	// kv, approval), globalThis, or this (a sloppy function called without
	// a receiver gets the global object). If not, the runtime has no host
	// globals: a script that reaches the global object in another way
	// finds none there, which grants it nothing.
	host bool
	// generators: the program has an async or generator function. The
	// constructors of their kinds (AsyncFunction, GeneratorFunction,
	// AsyncGeneratorFunction), which compile strings, are reachable only
	// from such a function's prototype chain: no built-in is one, and
	// without eval or Function no function is made from a string.
	generators bool
}

// seer is what rebase shows every node of the tree to, before it moves the
// node's positions.
type seer interface{ see(node any) }

// programWalk reads a program's features and finds the first name of the
// author's source (between lo and hi in the assembled text) that starts
// with jsident.InternalPrefix: the builder's own names, which the source
// must not declare or read (it could forge what the wrapper hands back).
type programWalk struct {
	features *features
	lo, hi   file.Idx
	reserved *ast.Identifier
	at       file.Idx // where reserved is in the assembled text
}

func (w *programWalk) see(node any) {
	w.features.see(node)
	if id, ok := node.(*ast.Identifier); ok && w.reserved == nil && id.Idx >= w.lo && id.Idx < w.hi &&
		strings.HasPrefix(id.Name.String(), jsident.InternalPrefix) {
		w.reserved, w.at = id, id.Idx // before rebase moves it
	}
}

// allFeatures is a program that may use everything.
var allFeatures = features{host: true, generators: true}

func (f *features) see(node any) {
	switch n := node.(type) {
	case *ast.Identifier:
		switch n.Name.String() {
		case "console", "capabilities", "api", "kv", "approval":
			f.host = true
		case "globalThis":
			f.host = true
		}
	case *ast.ThisExpression:
		f.host = true
	case *ast.FunctionLiteral:
		f.generators = f.generators || n.Async || n.Generator
	case *ast.ArrowFunctionLiteral:
		f.generators = f.generators || n.Async
	}
}

// TooDeepMessage is the message of the syntax error for a tree TooDeep
// refuses.
var TooDeepMessage = fmt.Sprintf(
	"SyntaxError: the source is nested more than %d levels deep here (a very long chain of operators, calls or else-ifs counts one level per link): split it into smaller expressions or functions",
	MaxSyntaxDepth)
