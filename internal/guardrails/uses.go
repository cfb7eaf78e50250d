package guardrails

import (
	"fmt"
	"slices"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
)

// Uses is what a template needs granted to run (DESIGN.md §9): the
// capabilities it uses and the connectors its api calls name. Both are
// sorted, without duplicates, never nil.
type Uses struct {
	// Capabilities are among CapabilityAPI, CapabilityApproval and
	// CapabilityKV.
	Capabilities []string `json:"capabilities"`
	// Connectors are the first arguments of api.get/post/put/patch/delete
	// calls that are string literals, at most MaxConnectors of them.
	Connectors []string `json:"connectors"`
}

// The capabilities a template can use, named as grants name them.
const (
	CapabilityAPI      = "api"
	CapabilityApproval = "approval"
	CapabilityKV       = "kv"
)

// capabilityGlobals are the sandbox's globals that need a grant, by the
// capability each needs. capabilities (the frozen array of granted names)
// and console are globals too, and need none.
var capabilityGlobals = map[string]string{
	"api":      CapabilityAPI,
	"approval": CapabilityApproval,
	"kv":       CapabilityKV,
}

// apiMethods are api's methods; each takes a connector first.
var apiMethods = map[string]bool{"get": true, "post": true, "put": true, "patch": true, "delete": true}

// Bounds of the connectors a report lists: a connector name is an
// operator's identifier, and the report crosses from a sandbox worker in a
// frame of bounded size.
const (
	MaxConnectors     = 50
	MaxConnectorBytes = 128
)

// uses collects what a walk finds.
type uses struct {
	capabilities map[string]struct{}
	connectors   map[string]struct{}
	// connectorsCut is set once a connector past MaxConnectors was seen.
	connectorsCut bool
}

func (u uses) result() Uses {
	return Uses{Capabilities: sortedKeys(u.capabilities), Connectors: sortedKeys(u.connectors)}
}

func sortedKeys(m map[string]struct{}) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (c *checker) useCapability(name string) {
	if c.uses.capabilities == nil {
		c.uses.capabilities = map[string]struct{}{}
	}
	c.uses.capabilities[name] = struct{}{}
}

// capabilityOf returns the capability obj is the global of — api, kv or
// approval as a free name, or as a member of a free globalThis — or "".
func capabilityOf(s *scope, obj ast.Expression) (string, file.Idx) {
	switch e := unwrapOptional(obj).(type) {
	case *ast.Identifier:
		if c, ok := capabilityGlobals[e.Name.String()]; ok && !s.resolves(e.Name.String()) {
			return c, e.Idx
		}
	case *ast.DotExpression:
		if isFreeGlobalThis(s, e.Left) {
			if c, ok := capabilityGlobals[e.Identifier.Name.String()]; ok {
				return c, e.Identifier.Idx
			}
		}
	case *ast.BracketExpression:
		if lit, ok := e.Member.(*ast.StringLiteral); ok && isFreeGlobalThis(s, e.Left) {
			if c, ok := capabilityGlobals[lit.Value.String()]; ok {
				return c, lit.Idx
			}
		}
	}
	return "", 0
}

func isFreeGlobalThis(s *scope, e ast.Expression) bool {
	id, ok := unwrapOptional(e).(*ast.Identifier)
	return ok && id.Name == "globalThis" && !s.resolves("globalThis")
}

// unwrapOptional strips the optional-chaining wrappers goja puts around a
// member or callee (api?.get, api.get?.()).
func unwrapOptional(e ast.Expression) ast.Expression {
	for {
		switch o := e.(type) {
		case *ast.Optional:
			e = o.Expression
		case *ast.OptionalChain:
			e = o.Expression
		default:
			return e
		}
	}
}

// capabilityRef records a use of the capability a reference reaches
// outside a direct api call. For api, the connectors it reaches cannot be
// known: a warning says so.
func (c *checker) capabilityRef(capability string, at file.Idx) {
	c.useCapability(capability)
	if capability == CapabilityAPI {
		c.report(at, CodeConnectorUnknown, SeverityWarning, "api", msgAPIIndirect)
	}
}

// apiCall handles api.<method>(connector, ...) and api['<method>'](...):
// it records the capability and the connector, or warns when the
// connector is not a string literal. It reports whether call was one.
func (c *checker) apiCall(s *scope, call *ast.CallExpression) bool {
	var obj ast.Expression
	var method string
	switch callee := unwrapOptional(call.Callee).(type) {
	case *ast.DotExpression:
		obj, method = callee.Left, callee.Identifier.Name.String()
	case *ast.BracketExpression:
		lit, ok := callee.Member.(*ast.StringLiteral)
		if !ok {
			return false
		}
		obj, method = callee.Left, lit.Value.String()
	default:
		return false
	}
	if capability, _ := capabilityOf(s, obj); capability != CapabilityAPI || !apiMethods[method] {
		return false
	}
	c.useCapability(CapabilityAPI)
	name, at, ok := connectorName(call)
	switch {
	case !ok:
		c.report(at, CodeConnectorUnknown, SeverityWarning, "api", msgConnectorUnknown)
	case len(name) > MaxConnectorBytes:
		c.report(at, CodeConnectorUnknown, SeverityWarning, "api",
			fmt.Sprintf("this connector name is %d bytes long, over the %d bytes of a connector name: check it", len(name), MaxConnectorBytes))
	default:
		c.useConnector(name, at)
	}
	return true
}

// connectorName returns the call's first argument when it is a string
// literal (or a template literal with no substitutions), with its
// position; else the position to report.
func connectorName(call *ast.CallExpression) (string, file.Idx, bool) {
	if len(call.ArgumentList) == 0 {
		return "", call.LeftParenthesis, false
	}
	switch a := call.ArgumentList[0].(type) {
	case *ast.StringLiteral:
		return a.Value.String(), a.Idx, true
	case *ast.TemplateLiteral:
		if a.Tag == nil && len(a.Expressions) == 0 && len(a.Elements) == 1 && a.Elements[0].Valid {
			return a.Elements[0].Parsed.String(), a.OpenQuote, true
		}
		return "", a.OpenQuote, false
	default:
		return "", a.Idx0(), false
	}
}

func (c *checker) useConnector(name string, at file.Idx) {
	if _, seen := c.uses.connectors[name]; seen {
		return
	}
	if len(c.uses.connectors) >= MaxConnectors {
		if !c.uses.connectorsCut {
			c.uses.connectorsCut = true
			c.report(at, CodeConnectorUnknown, SeverityWarning, "api", msgTooManyConnectors)
		}
		return
	}
	if c.uses.connectors == nil {
		c.uses.connectors = map[string]struct{}{}
	}
	c.uses.connectors[name] = struct{}{}
}
