package templatesapi

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

func envOf(m map[string]string) (func(string) string, *[]string) {
	var read []string
	return func(k string) string {
		read = append(read, k)
		return m[k]
	}, &read
}

func TestConfigFromEnvDefaults(t *testing.T) {
	getenv, _ := envOf(map[string]string{"AUTH_API_KEYS": " key-one-0123456789abcdef , ,key-two-0123456789abcdef "})
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		BasePath: "/api", Addr: ":8081", MaxConns: 1024, DataDir: "./data", LogLevel: "info",
		JWKSMaxAge: time.Hour, JWKSMinInterval: 10 * time.Second,
		JWTScopeClaim: "scope", JWTReadScope: "templates:read", JWTWriteScope: "templates:write",
		APIKeys:          []string{"key-one-0123456789abcdef", "key-two-0123456789abcdef"},
		BrokerMaxPayload: 1 << 20,
		Sandbox:          sandbox.Limits{}.WithDefaults(),
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("ConfigFromEnv = %+v\nwant %+v", cfg, want)
	}
}

func TestConfigFromEnvReadsEveryVariable(t *testing.T) {
	getenv, read := envOf(map[string]string{
		"FLOW_AI_CORE_BASE_PATH": "/flow-ai/",
		"TEMPLATES_ADDR":         "127.0.0.1:9000",
		"DATABASE_URL":           "postgres://db/templates",
		"TEMPLATES_DATA_DIR":     "/var/lib/templates",
		"TEMPLATES_MAX_CONNS":    "300",
		"AUTH_JWT_SECRET":        testJWTSecret,
		"AUTH_JWKS_URL":          "https://auth.example.com/jwks.json",
		"AUTH_JWKS_MAX_AGE":      "30m",
		"AUTH_JWKS_MIN_INTERVAL": "2s",
		"AUTH_JWT_AUDIENCE":      "templates, templates-staging",
		"AUTH_JWT_ISSUER":        "https://auth.example.com/",
		"AUTH_JWT_SCOPE_CLAIM":   "scp",
		"AUTH_JWT_TENANT_CLAIM":  "tid",
		"AUTH_JWT_READ_SCOPE":    "t.read",
		"AUTH_JWT_WRITE_SCOPE":   "t.write",
		"AUTH_API_KEYS":          "key-one-0123456789abcdef:read",
		"LOG_LEVEL":              "DEBUG",
		"SANDBOX_TIMEOUT_MS":     "1500",
		"SANDBOX_MAX_PARALLEL":   "3",
	})
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BasePath != "/flow-ai" || cfg.Addr != "127.0.0.1:9000" || cfg.DatabaseURL != "postgres://db/templates" ||
		cfg.DataDir != "/var/lib/templates" || cfg.JWKSURL != "https://auth.example.com/jwks.json" || cfg.JWTSecret != testJWTSecret ||
		cfg.MaxConns != 300 || cfg.JWKSMaxAge != 30*time.Minute || cfg.JWKSMinInterval != 2*time.Second ||
		!slices.Equal(cfg.JWTAudience, []string{"templates", "templates-staging"}) || cfg.JWTIssuer != "https://auth.example.com/" ||
		cfg.JWTScopeClaim != "scp" || cfg.JWTTenantClaim != "tid" || cfg.JWTReadScope != "t.read" || cfg.JWTWriteScope != "t.write" ||
		!slices.Equal(cfg.APIKeys, []string{"key-one-0123456789abcdef:read"}) ||
		cfg.Sandbox.Timeout != 1500*time.Millisecond || cfg.Sandbox.MaxParallel != 3 {
		t.Errorf("ConfigFromEnv = %+v", cfg)
	}
	if l, _ := cfg.Level(); l.String() != "DEBUG" {
		t.Errorf("level %v", l)
	}
	// What is read is exactly what the tags declare plus the sandbox's
	// variables: the tags are the list deployments check against.
	wantRead := append(envTags(t), sandbox.EnvVars...)
	got := slices.Clone(*read)
	slices.Sort(got)
	got = slices.Compact(got)
	slices.Sort(wantRead)
	if !slices.Equal(got, wantRead) {
		t.Errorf("variables read %v\nwant %v", got, wantRead)
	}
}

// envTags returns the `env` tags of Config, failing on a field that has
// neither an env tag nor the documented SANDBOX_ prefix.
func envTags(t *testing.T) []string {
	t.Helper()
	var tags []string
	typ := reflect.TypeOf(Config{})
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch {
		case f.Tag.Get("env") != "":
			tags = append(tags, f.Tag.Get("env"))
		case f.Tag.Get("envPrefix") == "SANDBOX_" && f.Type == reflect.TypeOf(sandbox.Limits{}):
		default:
			t.Errorf("Config.%s has no env tag", f.Name)
		}
	}
	return tags
}

func TestConfigFromEnvRefusesWithPreciseMessages(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"no authentication", map[string]string{}, []string{"AUTH_API_KEYS", "AUTH_JWT_SECRET", "AUTH_JWKS_URL"}},
		{"short secret", map[string]string{"AUTH_JWT_SECRET": "short"}, []string{"AUTH_JWT_SECRET must be at least 32 bytes"}},
		{"short key", map[string]string{"AUTH_API_KEYS": "dev"}, []string{"AUTH_API_KEYS entry 1", "at least 16"}},
		{"bad JWKS URL", map[string]string{"AUTH_JWKS_URL": "ftp://x"}, []string{"AUTH_JWKS_URL must be an https URL"}},
		{"plain-HTTP JWKS URL", jwtEnv("AUTH_JWKS_URL", "http://auth.example.com/jwks.json"), []string{"AUTH_JWKS_URL must use https", "loopback"}},
		{"plain-HTTP JWKS URL on a private address", jwtEnv("AUTH_JWKS_URL", "http://10.0.0.7/jwks.json"), []string{"AUTH_JWKS_URL must use https"}},
		{"guessable secret", jwtEnv("AUTH_JWT_SECRET", strings.Repeat("s", 32)), []string{"AUTH_JWT_SECRET looks guessable", "about 0 bits", "at least 128"}},
		{"repeated word as secret", jwtEnv("AUTH_JWT_SECRET", "changeme-changeme-changeme-changeme"), []string{"AUTH_JWT_SECRET looks guessable"}},
		{"guessable key", map[string]string{"AUTH_API_KEYS": "aaaaaaaaaaaaaaaaaaaaaaaa"}, []string{"AUTH_API_KEYS entry 1", "guessable", "at least 80"}},
		{"short key before a role", map[string]string{"AUTH_API_KEYS": "key-one-0123456789abcdef,dev:write"}, []string{"AUTH_API_KEYS entry 2", "at least 16"}},
		{"one key with two roles", map[string]string{"AUTH_API_KEYS": "key-one-0123456789abcdef:read,key-two-0123456789abcdef,key-one-0123456789abcdef:write"}, []string{"AUTH_API_KEYS entry 3 is the same key as entry 1"}},
		{"one key twice", map[string]string{"AUTH_API_KEYS": "key-one-0123456789abcdef,key-one-0123456789abcdef:write"}, []string{"AUTH_API_KEYS entry 2 is the same key as entry 1"}},
		{"no audience", jwtEnv("AUTH_JWT_AUDIENCE", ""), []string{"AUTH_JWT_AUDIENCE is required"}},
		{"no issuer", jwtEnv("AUTH_JWT_ISSUER", ""), []string{"AUTH_JWT_ISSUER is required"}},
		{"same read and write scope", jwtEnv("AUTH_JWT_WRITE_SCOPE", "templates:read"), []string{"must differ"}},
		{"tenant claim without tokens", map[string]string{"AUTH_API_KEYS": "key-one-0123456789abcdef", "AUTH_JWT_TENANT_CLAIM": "tenants"}, []string{"AUTH_JWT_TENANT_CLAIM is set, but no token is accepted"}},
		{"tenant claim is the scope claim", jwtEnv("AUTH_JWT_TENANT_CLAIM", "scope"), []string{"AUTH_JWT_TENANT_CLAIM and AUTH_JWT_SCOPE_CLAIM must differ"}},
		{"bad max age", jwtEnv("AUTH_JWKS_MAX_AGE", "an hour"), []string{"AUTH_JWKS_MAX_AGE must be a positive Go duration"}},
		{"interval over a quarter of the max age", jwtEnv("AUTH_JWKS_MAX_AGE", "1m", "AUTH_JWKS_MIN_INTERVAL", "30s"), []string{"AUTH_JWKS_MIN_INTERVAL must be between"}},
		{"tiny connection cap", map[string]string{"AUTH_API_KEYS": "key-one-0123456789abcdef", "TEMPLATES_MAX_CONNS": "2"}, []string{"TEMPLATES_MAX_CONNS must be at least 8"}},
		{"connection cap not a number", map[string]string{"AUTH_API_KEYS": "key-one-0123456789abcdef", "TEMPLATES_MAX_CONNS": "lots"}, []string{"TEMPLATES_MAX_CONNS must be a positive whole number"}},
		{"bad base path", map[string]string{"AUTH_API_KEYS": "key-one-0123456789abcdef", "FLOW_AI_CORE_BASE_PATH": "api v1"}, []string{"FLOW_AI_CORE_BASE_PATH"}},
		{"dot segment", map[string]string{"AUTH_API_KEYS": "key-one-0123456789abcdef", "FLOW_AI_CORE_BASE_PATH": "/a/../b"}, []string{"FLOW_AI_CORE_BASE_PATH"}},
		{"bad address", map[string]string{"AUTH_API_KEYS": "key-one-0123456789abcdef", "TEMPLATES_ADDR": "8081"}, []string{"TEMPLATES_ADDR"}},
		{"bad log level", map[string]string{"AUTH_API_KEYS": "key-one-0123456789abcdef", "LOG_LEVEL": "loud"}, []string{"LOG_LEVEL"}},
		{"bad sandbox limit", map[string]string{"AUTH_API_KEYS": "key-one-0123456789abcdef", "SANDBOX_MAX_PARALLEL": "many"}, []string{"SANDBOX_MAX_PARALLEL"}},
		{"several at once", map[string]string{"LOG_LEVEL": "loud", "TEMPLATES_ADDR": "x"}, []string{"LOG_LEVEL", "TEMPLATES_ADDR", "no authentication"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv, _ := envOf(tt.env)
			_, err := ConfigFromEnv(getenv)
			if err == nil {
				t.Fatal("ConfigFromEnv accepted it")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "0123456789abcdef") {
				t.Errorf("error %q shows a key", err)
			}
		})
	}
}

// jwtEnv is a valid JWT environment with the given variables changed.
func jwtEnv(kv ...string) map[string]string {
	env := map[string]string{
		"AUTH_JWT_SECRET":   testJWTSecret,
		"AUTH_JWKS_URL":     "https://auth.example.com/jwks.json",
		"AUTH_JWT_AUDIENCE": testAudience,
		"AUTH_JWT_ISSUER":   testIssuer,
	}
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return env
}

func TestConfigAcceptsLoopbackJWKSAndAPIKeyRoles(t *testing.T) {
	for _, url := range []string{"http://127.0.0.1:8080/jwks", "http://localhost/jwks", "http://[::1]:9/jwks", "https://auth.example.com/jwks"} {
		getenv, _ := envOf(jwtEnv("AUTH_JWKS_URL", url))
		if _, err := ConfigFromEnv(getenv); err != nil {
			t.Errorf("AUTH_JWKS_URL=%s refused: %v", url, err)
		}
	}
	for entry, want := range map[string]apiKey{
		"key-one-0123456789abcdef":        {key: "key-one-0123456789abcdef", role: RoleWrite},
		"key-one-0123456789abcdef:read":   {key: "key-one-0123456789abcdef", role: RoleRead},
		"key-one-0123456789abcdef:write":  {key: "key-one-0123456789abcdef", role: RoleWrite},
		"key:one-0123456789abcdef":        {key: "key:one-0123456789abcdef", role: RoleWrite},
		"key:one-0123456789abcdef:reader": {key: "key:one-0123456789abcdef:reader", role: RoleWrite},
	} {
		got, err := parseAPIKey(entry)
		if err != nil || got != want {
			t.Errorf("parseAPIKey(%q) = %+v, %v; want %+v", entry, got, err, want)
		}
	}
	// An environment that set only AUTH_API_KEYS before roles existed
	// still validates, and its keys may write.
	getenv, _ := envOf(map[string]string{"AUTH_API_KEYS": "dev-key-0123456789abcdef"})
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := parseAPIKey(cfg.APIKeys[0]); k.role != RoleWrite {
		t.Errorf("a bare key has role %s, want write", k.role)
	}
}

func TestEstimatedEntropyBits(t *testing.T) {
	for s, want := range map[string][2]float64{
		"":                                    {0, 0},
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":    {0, 0},
		"abcdefghijklmnop":                    {64, 64},
		"0123456789abcdef0123456789abcdef":    {128, 128},
		"changeme-changeme-changeme-changeme": {100, 105},
		"9f8917cceda0fc622393de780959ad1cd0331e96513f383e266528755171f643": {230, 256},
	} {
		if got := EstimatedEntropyBits(s); got < want[0]-0.01 || got > want[1]+0.01 {
			t.Errorf("EstimatedEntropyBits(%q) = %.1f, want %.0f..%.0f", s, got, want[0], want[1])
		}
	}
}

func TestBasePathForms(t *testing.T) {
	for in, want := range map[string]string{"": "/api", "/": "/", "//": "/", "/api/": "/api", "/a/b": "/a/b"} {
		cfg := Config{BasePath: in}.WithDefaults()
		if cfg.BasePath != want || cfg.WithDefaults().BasePath != want {
			t.Errorf("BasePath %q → %q, want %q (and stable)", in, cfg.BasePath, want)
		}
	}
}
