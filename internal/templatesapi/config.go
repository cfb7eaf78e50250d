package templatesapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"reflect"
	"strings"

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
	// DatabaseURL selects the PostgreSQL store (DATABASE_URL). Empty: the
	// embedded store in DataDir.
	DatabaseURL string `env:"DATABASE_URL"`
	// DataDir is the embedded store's folder (TEMPLATES_DATA_DIR, default
	// ./data). Unused with DatabaseURL.
	DataDir string `env:"TEMPLATES_DATA_DIR"`
	// JWTSecret verifies HS256 bearer tokens (AUTH_JWT_SECRET, at least 32
	// bytes).
	JWTSecret string `env:"AUTH_JWT_SECRET"`
	// JWKSURL is where RS256 verification keys are fetched (AUTH_JWKS_URL).
	JWKSURL string `env:"AUTH_JWKS_URL"`
	// APIKeys are the accepted X-API-Key values (AUTH_API_KEYS,
	// comma-separated, each at least 16 characters).
	APIKeys []string `env:"AUTH_API_KEYS"`
	// LogLevel is debug, info, warn or error (LOG_LEVEL, default info).
	LogLevel string `env:"LOG_LEVEL"`
	// Sandbox limits the test runs and the source size
	// (SANDBOX_*, read by sandbox.LimitsFromEnv).
	Sandbox sandbox.Limits `envPrefix:"SANDBOX_"`
}

// Defaults.
const (
	DefaultBasePath = "/api"
	DefaultAddr     = ":8081"
	DefaultDataDir  = "./data"
	DefaultLogLevel = "info"
)

// Minimum credential sizes.
const (
	MinJWTSecretBytes = 32
	MinAPIKeyLength   = 16
)

// ConfigFromEnv reads the `env`-tagged fields and the SANDBOX_* variables
// through getenv (os.Getenv in production), applies the defaults and
// validates the result. The error names every variable that is wrong.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	var cfg Config
	v := reflect.ValueOf(&cfg).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Tag.Get("env")
		if name == "" {
			continue
		}
		raw := getenv(name)
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			f.SetString(strings.TrimSpace(raw))
		case reflect.Slice:
			f.Set(reflect.ValueOf(splitList(raw)))
		default:
			panic(fmt.Sprintf("templatesapi: env field %s has unsupported kind %s", v.Type().Field(i).Name, f.Kind()))
		}
	}
	limits, limErr := sandbox.LimitsFromEnv(getenv)
	cfg.Sandbox = limits
	cfg = cfg.WithDefaults()
	return cfg, errors.Join(limErr, cfg.Validate())
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
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir
	}
	if c.LogLevel == "" {
		c.LogLevel = DefaultLogLevel
	}
	c.Sandbox = c.Sandbox.WithDefaults()
	return c
}

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
	if c.DatabaseURL == "" && c.DataDir == "" {
		fail("TEMPLATES_DATA_DIR is empty and DATABASE_URL is not set: set one of them")
	}
	if c.JWTSecret == "" && c.JWKSURL == "" && len(c.APIKeys) == 0 {
		fail("no authentication configured: set AUTH_API_KEYS, AUTH_JWT_SECRET or AUTH_JWKS_URL (every route requires credentials)")
	}
	if c.JWTSecret != "" && len(c.JWTSecret) < MinJWTSecretBytes {
		fail("AUTH_JWT_SECRET must be at least %d bytes for HS256, got %d", MinJWTSecretBytes, len(c.JWTSecret))
	}
	if c.JWKSURL != "" {
		u, err := url.Parse(c.JWKSURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			fail("AUTH_JWKS_URL must be an http or https URL such as https://auth.example.com/.well-known/jwks.json")
		}
	}
	for i, k := range c.APIKeys {
		if len(k) < MinAPIKeyLength {
			fail("AUTH_API_KEYS entry %d is %d characters; each key must be at least %d", i+1, len(k), MinAPIKeyLength)
		}
	}
	if _, err := c.Level(); err != nil {
		fail("LOG_LEVEL must be debug, info, warn or error, got %q", c.LogLevel)
	}
	if err := c.Sandbox.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
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
