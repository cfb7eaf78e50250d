package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Defaults and bounds of a connector.
const (
	// DefaultTimeout is a connector's Timeout when it sets none.
	DefaultTimeout = 5 * time.Second
	// DefaultMaxResponseBytes is a connector's MaxResponseBytes when it sets
	// none.
	DefaultMaxResponseBytes = 1 << 20
	// MaxResponseBytesLimit bounds MaxResponseBytes: a response crosses to
	// the worker as JSON, twice (body and json), inside the job's memory.
	MaxResponseBytesLimit = 32 << 20
	// MaxRedirects is how many redirects one call follows.
	MaxRedirects = 5
)

// Methods a connector may allow, in the order messages list them.
var supportedMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// Secret names where a header value comes from: an environment variable of the
// executor (Env) or a file (File, e.g. a mounted Kubernetes secret); Prefix is
// prepended (e.g. "Bearer "). Resolved once by New; never logged, never in errors.
// Exactly one of Env and File is set. A file's trailing line breaks are
// dropped; the value must not be empty.
type Secret struct {
	Env    string `yaml:"env,omitempty" json:"env,omitempty"`
	File   string `yaml:"file,omitempty" json:"file,omitempty"`
	Prefix string `yaml:"prefix,omitempty" json:"prefix,omitempty"`
}

// Connector is one approved service, named by the operator.
type Connector struct {
	BaseURL          string            `yaml:"baseURL" json:"baseURL"`           // https://crm.example.com/api/v1/
	Methods          []string          `yaml:"methods" json:"methods"`           // GET, POST, PUT, PATCH, DELETE
	PathPrefixes     []string          `yaml:"pathPrefixes" json:"pathPrefixes"` // relative to BaseURL, e.g. /customers
	Headers          map[string]Secret `yaml:"headers" json:"headers"`
	Timeout          time.Duration     `yaml:"timeout" json:"timeout"`                   // default 5s, capped by the job's deadline
	MaxResponseBytes int64             `yaml:"maxResponseBytes" json:"maxResponseBytes"` // default 1 MiB
	Tenants          []string          `yaml:"tenants" json:"tenants"`                   // tenants allowed; "*" = any
}

// connector is a validated Connector with its secrets resolved.
type connector struct {
	name     string
	scheme   string // http or https
	hostname string // lower case, no brackets
	hostPort string // hostname:port, the port explicit
	host     string // as in a URL: hostname[:port], brackets for IPv6
	basePath string // escaped, no trailing slash ("" for the root)
	// allowPrivate: the base URL's host is a literal IP or "localhost", so
	// private and loopback addresses are reachable.
	allowPrivate bool
	methods      []string // upper case, supportedMethods order
	prefixes     []string // "/" or "/a/b", no trailing slash
	headers      http.Header
	timeout      time.Duration
	maxBytes     int64
	anyTenant    bool
	tenants      map[string]bool
}

func (c *connector) allowsMethod(m string) bool { return slices.Contains(c.methods, m) }

func (c *connector) allowsTenant(t string) bool { return c.anyTenant || c.tenants[t] }

// underPrefix reports whether rel (an escaped path relative to the base
// path) is one of the prefixes or below one, segment by segment.
func (c *connector) underPrefix(rel string) bool {
	for _, p := range c.prefixes {
		if p == "/" || rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// compile validates def and resolves its secrets. Every problem is returned,
// each naming the connector and the field; none holds a secret value.
func compile(name string, def Connector, env func(string) string, readFile func(string) ([]byte, error)) (*connector, []string, []error) {
	c := &connector{name: name, timeout: def.Timeout, maxBytes: def.MaxResponseBytes, headers: http.Header{}}
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("connector %q: %s: %s", name, field, fmt.Sprintf(format, args...)))
	}
	if !validName(name) {
		fail("name", "use 1 to 64 letters, digits, '-', '_' or '.'")
	}
	if problem := c.setBase(def.BaseURL); problem != "" {
		fail("baseURL", "%s", problem)
	}
	if len(def.Methods) == 0 {
		fail("methods", "empty; list some of %s", strings.Join(supportedMethods, ", "))
	}
	for _, m := range def.Methods {
		up := strings.ToUpper(strings.TrimSpace(m))
		if !slices.Contains(supportedMethods, up) {
			fail("methods", "%q is not supported; use %s", m, strings.Join(supportedMethods, ", "))
			continue
		}
		if !slices.Contains(c.methods, up) {
			c.methods = append(c.methods, up)
		}
	}
	slices.SortFunc(c.methods, func(a, b string) int {
		return slices.Index(supportedMethods, a) - slices.Index(supportedMethods, b)
	})
	if len(def.PathPrefixes) == 0 {
		fail("pathPrefixes", `empty; list the paths scripts may call, e.g. "/customers", or "/" for any`)
	}
	for _, p := range def.PathPrefixes {
		norm, problem := normalizePrefix(p)
		if problem != "" {
			fail("pathPrefixes", "%q: %s", p, problem)
			continue
		}
		c.prefixes = append(c.prefixes, norm)
	}
	var secrets []string
	for _, h := range sortedKeys(def.Headers) {
		value, problem := resolveSecret(h, def.Headers[h], env, readFile)
		if problem != "" {
			fail(fmt.Sprintf("headers[%q]", h), "%s", problem)
			continue
		}
		c.headers.Set(h, value)
		secrets = append(secrets, value[len(def.Headers[h].Prefix):])
	}
	switch {
	case c.timeout < 0:
		fail("timeout", "%s is negative; leave it out for %s", c.timeout, DefaultTimeout)
	case c.timeout == 0:
		c.timeout = DefaultTimeout
	}
	switch {
	case c.maxBytes < 0 || c.maxBytes > MaxResponseBytesLimit:
		fail("maxResponseBytes", "%d is outside 1..%d; leave it out for %d", c.maxBytes, MaxResponseBytesLimit, DefaultMaxResponseBytes)
	case c.maxBytes == 0:
		c.maxBytes = DefaultMaxResponseBytes
	}
	if len(def.Tenants) == 0 {
		fail("tenants", `empty; list the tenant ids that may use it, or "*" for any`)
	}
	c.tenants = map[string]bool{}
	for _, t := range def.Tenants {
		if t == "*" {
			c.anyTenant = true
		}
		c.tenants[t] = true
	}
	return c, secrets, errs
}

// setBase parses and checks the base URL; it returns a problem or "".
func (c *connector) setBase(raw string) string {
	if raw == "" {
		return "empty; give the service's URL, e.g. https://crm.example.com/api/v1/"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "not a URL"
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "the scheme must be http or https"
	case u.Opaque != "" || u.Hostname() == "":
		return "no host; give an absolute URL such as https://crm.example.com/api/v1/"
	case u.User != nil:
		return "user information (user@) is not allowed; send credentials as headers from secrets"
	case u.RawQuery != "" || u.ForceQuery:
		return "a query is not allowed; scripts pass query parameters"
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "a fragment (#) is not allowed"
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "the port must be 1 to 65535"
	}
	hostname := strings.ToLower(u.Hostname())
	p := u.EscapedPath()
	if p != "" && !strings.HasPrefix(p, "/") {
		return "the path must start with /"
	}
	trimmed := strings.TrimSuffix(p, "/")
	if trimmed != "" {
		if problem := checkPath(trimmed); problem != "" {
			return "the path " + problem
		}
	}
	ip, ipErr := netip.ParseAddr(hostname)
	c.scheme = u.Scheme
	c.hostname = hostname
	c.hostPort = net.JoinHostPort(hostname, port)
	c.host = strings.ToLower(u.Host)
	c.basePath = trimmed
	c.allowPrivate = hostname == "localhost" || (ipErr == nil && ip.IsValid())
	return ""
}

// normalizePrefix checks an operator's path prefix and returns it with one
// leading and no trailing slash ("/" stays "/").
func normalizePrefix(p string) (string, string) {
	if !strings.HasPrefix(p, "/") {
		return "", "must start with /"
	}
	if strings.ContainsAny(p, "?#%") {
		return "", "give a plain path: no query, fragment or percent-encoding"
	}
	if p == "/" {
		return p, ""
	}
	p = strings.TrimSuffix(p, "/")
	if problem := checkPath(p); problem != "" {
		return "", problem
	}
	return p, ""
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := range len(s) {
		b := s[i]
		if !isAlnum(b) && b != '-' && b != '_' && b != '.' {
			return false
		}
	}
	return true
}

func isAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
