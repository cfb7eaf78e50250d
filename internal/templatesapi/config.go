package templatesapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// Config is everything the service reads from the environment. Every field
// read from a variable carries its name in an `env` tag, and ConfigFromEnv
// reads exactly those tags, so the tags are the list of variables
// deployments may set. Sandbox is read by sandbox.LimitsFromEnv (the
// variables of sandbox.EnvVars, all prefixed SANDBOX_).
type Config struct {
	// BasePath prefixes every API route (FLOW_AI_CORE_BASE_PATH, default
	// /api; "/" means no prefix).
	BasePath string `env:"FLOW_AI_CORE_BASE_PATH"`
	// Addr is the listen address (TEMPLATES_ADDR, default :8081).
	Addr string `env:"TEMPLATES_ADDR"`
	// MaxConns caps the connections held open at once
	// (TEMPLATES_MAX_CONNS, default 1024). At the cap a new connection
	// closes the one idle the longest; when none is idle it is refused.
	MaxConns int `env:"TEMPLATES_MAX_CONNS"`
	// DatabaseURL selects the PostgreSQL store (DATABASE_URL). Empty: the
	// embedded store in DataDir.
	DatabaseURL string `env:"DATABASE_URL"`
	// DataDir is the embedded store's folder (TEMPLATES_DATA_DIR, default
	// ./data). Unused with DatabaseURL.
	DataDir string `env:"TEMPLATES_DATA_DIR"`
	// JWTSecret verifies HS256 bearer tokens (AUTH_JWT_SECRET, at least 32
	// bytes and MinJWTSecretBits of estimated entropy).
	JWTSecret string `env:"AUTH_JWT_SECRET"`
	// JWKSURL is where RS256 verification keys are fetched (AUTH_JWKS_URL,
	// https; http only for a loopback host).
	JWKSURL string `env:"AUTH_JWKS_URL"`
	// JWKSMaxAge is how old the last good copy of the key set may get
	// while refreshes fail; past it RS256 tokens are refused
	// (AUTH_JWKS_MAX_AGE, default 1h).
	JWKSMaxAge time.Duration `env:"AUTH_JWKS_MAX_AGE"`
	// JWKSMinInterval is the least time between the end of one key-set
	// fetch and the start of the next (AUTH_JWKS_MIN_INTERVAL, default
	// 10s): a kid the set does not hold is looked up at most this often.
	JWKSMinInterval time.Duration `env:"AUTH_JWKS_MIN_INTERVAL"`
	// JWTAudience lists the accepted aud values; a token must name one
	// (AUTH_JWT_AUDIENCE, comma-separated; required with JWT auth).
	JWTAudience []string `env:"AUTH_JWT_AUDIENCE"`
	// JWTIssuer is the only accepted iss (AUTH_JWT_ISSUER; required with
	// JWT auth).
	JWTIssuer string `env:"AUTH_JWT_ISSUER"`
	// JWTScopeClaim names the claim holding the token's scopes: a
	// space-separated string or an array of strings (AUTH_JWT_SCOPE_CLAIM,
	// default scope).
	JWTScopeClaim string `env:"AUTH_JWT_SCOPE_CLAIM"`
	// JWTTenantClaim, when set, names the claim holding the tenants a
	// token may run test runs and replays for: a string or an array of
	// strings (AUTH_JWT_TENANT_CLAIM). A token without it may use none; an
	// API key may use any. Unset, every credential may use any tenant.
	JWTTenantClaim string `env:"AUTH_JWT_TENANT_CLAIM"`
	// JWTReadScope lets a token read templates (AUTH_JWT_READ_SCOPE,
	// default templates:read).
	JWTReadScope string `env:"AUTH_JWT_READ_SCOPE"`
	// JWTWriteScope lets a token read, create, update and delete templates
	// and run tests (AUTH_JWT_WRITE_SCOPE, default templates:write).
	JWTWriteScope string `env:"AUTH_JWT_WRITE_SCOPE"`
	// APIKeys are the accepted X-API-Key values (AUTH_API_KEYS,
	// comma-separated, each "key" or "key:read" or "key:write"; a bare key
	// may write, as before roles existed; each key at least 16 characters
	// and MinAPIKeyBits of estimated entropy).
	APIKeys []string `env:"AUTH_API_KEYS"`
	// LogLevel is debug, info, warn or error (LOG_LEVEL, default info).
	LogLevel string `env:"LOG_LEVEL"`
	// CapabilitiesPolicyFile is the executor's capabilities policy (YAML):
	// test runs are granted host functions as jobs are (DESIGN.md §9).
	CapabilitiesPolicyFile string `env:"CAPABILITIES_POLICY_FILE"`
	// NATSURL, NATSCreds, JobsStream and SubjectPrefix reach the
	// executor's failures stream, for replays of failed jobs
	// (replay_handler.go): set them as the executor has them. NATS_URL
	// empty: replays answer 503.
	NATSURL string `env:"NATS_URL"`
	// BrokerMaxPayload is the executor's broker's max_payload
	// (NATS_MAX_PAYLOAD, default nats-server's 1 MiB): a test run or a
	// replay whose result event would not fit one message fails with
	// OUTPUT_TOO_LARGE, as the executor fails the job.
	BrokerMaxPayload int    `env:"NATS_MAX_PAYLOAD"`
	NATSCreds        string `env:"NATS_CREDS"`
	JobsStream       string `env:"JOBS_STREAM"`
	SubjectPrefix    string `env:"SUBJECT_PREFIX"`
	// Sandbox limits the test runs and the source size
	// (SANDBOX_*, read by sandbox.LimitsFromEnv).
	Sandbox sandbox.Limits `envPrefix:"SANDBOX_"`
}

// Defaults.
const (
	DefaultBasePath        = "/api"
	DefaultAddr            = ":8081"
	DefaultMaxConns        = 1024
	DefaultDataDir         = "./data"
	DefaultLogLevel        = "info"
	DefaultJWKSMaxAge      = time.Hour
	DefaultJWKSMinInterval = 10 * time.Second
	DefaultJWTScopeClaim   = "scope"
	DefaultJWTReadScope    = "templates:read"
	DefaultJWTWriteScope   = "templates:write"
)

// Credential floors. The entropy is an estimate (EstimatedEntropyBits):
// it refuses repeated characters, tiny alphabets and short words, not
// every guessable secret; generate secrets with `openssl rand -hex 32`.
const (
	MinJWTSecretBytes = 32
	MinJWTSecretBits  = 128
	MinAPIKeyLength   = 16
	MinAPIKeyBits     = 80
)

// Bounds of the tunables.
const (
	minMaxConns        = 8
	minJWKSMinInterval = 100 * time.Millisecond
	minJWKSMaxAge      = time.Second
)

var durationType = reflect.TypeFor[time.Duration]()

// ConfigFromEnv reads the `env`-tagged fields and the SANDBOX_* variables
// through getenv (os.Getenv in production), applies the defaults and
// validates the result. The error names every variable that is wrong.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	var cfg Config
	var errs []error
	v := reflect.ValueOf(&cfg).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Tag.Get("env")
		if name == "" {
			continue
		}
		raw := strings.TrimSpace(getenv(name))
		switch f := v.Field(i); {
		case f.Kind() == reflect.String:
			f.SetString(raw)
		case f.Kind() == reflect.Slice:
			f.Set(reflect.ValueOf(splitList(raw)))
		case f.Type() == durationType:
			if raw == "" {
				continue
			}
			d, err := time.ParseDuration(raw)
			if err != nil || d <= 0 {
				errs = append(errs, fmt.Errorf("%s must be a positive Go duration such as 30s or 1h, got %q", name, raw))
				continue
			}
			f.SetInt(int64(d))
		case f.Kind() == reflect.Int:
			if raw == "" {
				continue
			}
			n, err := strconv.Atoi(raw)
			if err != nil || n <= 0 {
				errs = append(errs, fmt.Errorf("%s must be a positive whole number, got %q", name, raw))
				continue
			}
			f.SetInt(int64(n))
		default:
			panic(fmt.Sprintf("templatesapi: env field %s has unsupported kind %s", v.Type().Field(i).Name, f.Kind()))
		}
	}
	limits, limErr := sandbox.LimitsFromEnv(getenv)
	cfg.Sandbox = limits
	cfg = cfg.WithDefaults()
	// A variable that did not parse keeps its default for Validate.
	return cfg, errors.Join(append(errs, limErr, cfg.Validate())...)
}

func splitList(raw string) []string {
	var out []string
	for _, part := range strings.Split(raw, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// WithDefaults returns c with unset fields set to their defaults and the
// base path in its canonical form ("/" for the root, otherwise /a/b with no
// trailing slash).
func (c Config) WithDefaults() Config {
	if c.BasePath == "" {
		c.BasePath = DefaultBasePath
	}
	if trimmed := strings.TrimRight(c.BasePath, "/"); trimmed != "" {
		c.BasePath = trimmed
	} else {
		c.BasePath = "/"
	}
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.MaxConns == 0 {
		c.MaxConns = DefaultMaxConns
	}
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir
	}
	if c.LogLevel == "" {
		c.LogLevel = DefaultLogLevel
	}
	if c.BrokerMaxPayload == 0 {
		c.BrokerMaxPayload = consumer.DefaultMaxPayload
	}
	if c.JWKSMaxAge == 0 {
		c.JWKSMaxAge = DefaultJWKSMaxAge
	}
	if c.JWKSMinInterval == 0 {
		c.JWKSMinInterval = DefaultJWKSMinInterval
	}
	if c.JWTScopeClaim == "" {
		c.JWTScopeClaim = DefaultJWTScopeClaim
	}
	if c.JWTReadScope == "" {
		c.JWTReadScope = DefaultJWTReadScope
	}
	if c.JWTWriteScope == "" {
		c.JWTWriteScope = DefaultJWTWriteScope
	}
	c.Sandbox = c.Sandbox.WithDefaults()
	return c
}

// jwtEnabled tells whether bearer tokens are accepted.
func (c Config) jwtEnabled() bool { return c.JWTSecret != "" || c.JWKSURL != "" }

// Validate reports every field out of its rules, naming its variable.
func (c Config) Validate() error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if c.BasePath != "/" && !validBasePath(c.BasePath) {
		fail("FLOW_AI_CORE_BASE_PATH must be a path such as /api (letters, digits, - . _ ~ and single slashes), got %q", c.BasePath)
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		fail("TEMPLATES_ADDR must be host:port or :port, got %q", c.Addr)
	}
	if c.MaxConns < minMaxConns {
		fail("TEMPLATES_MAX_CONNS must be at least %d, got %d", minMaxConns, c.MaxConns)
	}
	if c.DatabaseURL == "" && c.DataDir == "" {
		fail("TEMPLATES_DATA_DIR is empty and DATABASE_URL is not set: set one of them")
	}
	if !c.jwtEnabled() && len(c.APIKeys) == 0 {
		fail("no authentication configured: set AUTH_API_KEYS, AUTH_JWT_SECRET or AUTH_JWKS_URL (every route requires credentials)")
	}
	errs = append(errs, c.validateJWT()...)
	errs = append(errs, c.validateReplay()...)
	firstEntry := make(map[string]int, len(c.APIKeys)) // key → its first entry's number
	for i, entry := range c.APIKeys {
		k, err := parseAPIKey(entry)
		if err != nil {
			fail("AUTH_API_KEYS entry %d: %v", i+1, err)
			continue
		}
		// One key with two roles would get whichever came last, in silence.
		if first, dup := firstEntry[k.key]; dup {
			fail("AUTH_API_KEYS entry %d is the same key as entry %d: list each key once, with the one role it should have", i+1, first)
			continue
		}
		firstEntry[k.key] = i + 1
	}
	if _, err := c.Level(); err != nil {
		fail("LOG_LEVEL must be debug, info, warn or error, got %q", c.LogLevel)
	}
	if err := c.Sandbox.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (c Config) validateJWT() []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.JWTSecret != "" {
		if len(c.JWTSecret) < MinJWTSecretBytes {
			fail("AUTH_JWT_SECRET must be at least %d bytes for HS256, got %d", MinJWTSecretBytes, len(c.JWTSecret))
		} else if bits := EstimatedEntropyBits(c.JWTSecret); bits < MinJWTSecretBits {
			fail("AUTH_JWT_SECRET looks guessable (about %.0f bits of entropy, at least %d required): generate one with `openssl rand -hex 32`", bits, MinJWTSecretBits)
		}
	}
	if c.JWKSURL != "" {
		if err := checkJWKSURL(c.JWKSURL); err != nil {
			fail("AUTH_JWKS_URL %v", err)
		}
	}
	if c.JWKSMaxAge < minJWKSMaxAge {
		fail("AUTH_JWKS_MAX_AGE must be at least %s, got %s", minJWKSMaxAge, c.JWKSMaxAge)
	}
	if c.JWKSMinInterval < minJWKSMinInterval || c.JWKSMinInterval > c.JWKSMaxAge/4 {
		fail("AUTH_JWKS_MIN_INTERVAL must be between %s and a quarter of AUTH_JWKS_MAX_AGE (%s), got %s",
			minJWKSMinInterval, c.JWKSMaxAge/4, c.JWKSMinInterval)
	}
	if !c.jwtEnabled() {
		if c.JWTTenantClaim != "" {
			fail("AUTH_JWT_TENANT_CLAIM is set, but no token is accepted: set AUTH_JWT_SECRET or AUTH_JWKS_URL, or unset it")
		}
		return errs
	}
	if c.JWTTenantClaim != "" && c.JWTTenantClaim == c.JWTScopeClaim {
		fail("AUTH_JWT_TENANT_CLAIM and AUTH_JWT_SCOPE_CLAIM must differ, both are %q", c.JWTTenantClaim)
	}
	if len(c.JWTAudience) == 0 {
		fail("AUTH_JWT_AUDIENCE is required with AUTH_JWT_SECRET or AUTH_JWKS_URL: set the aud your identity provider puts in tokens for this service")
	}
	if c.JWTIssuer == "" {
		fail("AUTH_JWT_ISSUER is required with AUTH_JWT_SECRET or AUTH_JWKS_URL: set the iss of your identity provider's tokens")
	}
	if strings.ContainsAny(c.JWTReadScope, " \t") || strings.ContainsAny(c.JWTWriteScope, " \t") {
		fail("AUTH_JWT_READ_SCOPE and AUTH_JWT_WRITE_SCOPE must be single scopes without spaces, got %q and %q", c.JWTReadScope, c.JWTWriteScope)
	} else if c.JWTReadScope == c.JWTWriteScope {
		fail("AUTH_JWT_READ_SCOPE and AUTH_JWT_WRITE_SCOPE must differ, both are %q", c.JWTReadScope)
	}
	return errs
}

// checkJWKSURL accepts https URLs, and http ones only for a loopback host
// (a JWKS server on the same machine, as in tests): keys fetched over
// plain HTTP could be swapped by anyone on the path.
func checkJWKSURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return errors.New("must be an https URL such as https://auth.example.com/.well-known/jwks.json")
	}
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return fmt.Errorf("must use https (http is allowed only for a loopback host such as 127.0.0.1), got http://%s", u.Host)
	}
	return nil
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// prefix is what route paths start with: "" for the root.
func (c Config) prefix() string { return strings.TrimRight(c.BasePath, "/") }

// Level returns the parsed LogLevel.
func (c Config) Level() (slog.Level, error) {
	var l slog.Level
	err := l.UnmarshalText([]byte(c.LogLevel))
	return l, err
}

func validBasePath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.Contains(p, "//") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, r := range p {
		ok := r == '/' || r == '-' || r == '.' || r == '_' || r == '~' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
