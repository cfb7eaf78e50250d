package capabilities

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/capabilities/httpapi"
)

// Policy is the operator's: which capabilities each tenant may use, and the
// connectors the api capability reaches (each says which tenants may use
// it). A job is granted what it asks for that its tenant may use.
type Policy struct {
	Tenants    map[string]Tenant            `yaml:"tenants" json:"tenants"`
	Connectors map[string]httpapi.Connector `yaml:"connectors" json:"connectors"`
}

// Tenant is what one tenant may use.
type Tenant struct {
	Capabilities []string `yaml:"capabilities" json:"capabilities"`
}

// ParsePolicy reads a policy file (YAML, or JSON, which is YAML too).
// Unknown fields are refused, and every problem is named: the tenant or
// connector and the field.
func ParsePolicy(data []byte) (*Policy, error) {
	var p Policy
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); errors.Is(err, io.EOF) {
		return nil, errors.New("the capabilities policy is empty: name the tenants and what each may use (tenants:), or unset the variable to grant nothing")
	} else if err != nil {
		return nil, fmt.Errorf("reading the capabilities policy: %w", err)
	}
	return &p, p.Validate()
}

// Validate reports every unknown capability and every tenant without a
// name.
func (p *Policy) Validate() error {
	var errs []error
	for _, name := range sortedKeys(p.Tenants) {
		switch {
		case name == "":
			errs = append(errs, errors.New("tenants: a tenant needs a name"))
		case strings.ContainsAny(name, "*?"):
			errs = append(errs, fmt.Errorf("tenants: %q is not a pattern here but a tenant's name, which no job should have: name each tenant (a connector's tenants list is where \"*\" means any tenant)", name))
		}
		for i, c := range p.Tenants[name].Capabilities {
			if !slices.Contains(flowjob.KnownCapabilities, c) {
				errs = append(errs, fmt.Errorf("tenants.%s.capabilities[%d]: unknown capability %q: known are %v",
					name, i, c, flowjob.KnownCapabilities))
			}
		}
	}
	return errors.Join(errs...)
}

// FitsHostBytes checks that every connector's answers can reach a script
// within maxHostBytes (SANDBOX_MAX_HOST_BYTES): an answer carries the body
// twice (as body and as json), so a connector whose maxResponseBytes is
// over half of it would be called, then its answer refused as
// HOST_CALL_LIMIT — a side effect the script cannot see the result of.
func (p *Policy) FitsHostBytes(maxHostBytes int) error {
	if p == nil {
		return nil
	}
	var errs []error
	for _, name := range sortedKeys(p.Connectors) {
		n := p.Connectors[name].MaxResponseBytes
		if n == 0 {
			n = httpapi.DefaultMaxResponseBytes
		}
		if 2*n > int64(maxHostBytes) {
			errs = append(errs, fmt.Errorf("connectors.%s.maxResponseBytes: %d is over half of SANDBOX_MAX_HOST_BYTES (%d), and an answer carries its body twice (body and json): "+
				"lower it to at most %d, or raise SANDBOX_MAX_HOST_BYTES", name, n, maxHostBytes, maxHostBytes/2))
		}
	}
	return errors.Join(errs...)
}

// Grant is the capabilities a job of tenant that asks for asked is
// granted: those of asked the tenant may use, in asked's order. A job
// without a tenant, or of a tenant the policy does not name, gets none.
func (p *Policy) Grant(tenant string, asked []string) []string {
	if p == nil || tenant == "" || len(asked) == 0 {
		return nil
	}
	t, ok := p.Tenants[tenant]
	if !ok {
		return nil
	}
	var granted []string
	for _, c := range asked {
		if slices.Contains(t.Capabilities, c) && !slices.Contains(granted, c) {
			granted = append(granted, c)
		}
	}
	return granted
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// UsesKV reports whether some tenant may use kv (the executor then opens
// the session store).
func (p *Policy) UsesKV() bool { return p.Allows(flowjob.CapabilityKV) }

// Allows reports whether some tenant may use capability.
func (p *Policy) Allows(capability string) bool {
	if p == nil {
		return false
	}
	for _, t := range p.Tenants {
		if slices.Contains(t.Capabilities, capability) {
			return true
		}
	}
	return false
}
