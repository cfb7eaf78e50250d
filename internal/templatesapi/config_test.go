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
		BasePath: "/api", Addr: ":8081", DataDir: "./data", LogLevel: "info",
		APIKeys: []string{"key-one-0123456789abcdef", "key-two-0123456789abcdef"},
		Sandbox: sandbox.Limits{}.WithDefaults(),
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
		"AUTH_JWT_SECRET":        strings.Repeat("s", 32),
		"AUTH_JWKS_URL":          "https://auth.example.com/jwks.json",
		"AUTH_API_KEYS":          "key-one-0123456789abcdef",
		"LOG_LEVEL":              "DEBUG",
		"SANDBOX_TIMEOUT_MS":     "1500",
		"SANDBOX_MAX_PARALLEL":   "3",
	})
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BasePath != "/flow-ai" || cfg.Addr != "127.0.0.1:9000" || cfg.DatabaseURL != "postgres://db/templates" ||
		cfg.DataDir != "/var/lib/templates" || cfg.JWKSURL != "https://auth.example.com/jwks.json" || len(cfg.JWTSecret) != 32 ||
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
		{"bad JWKS URL", map[string]string{"AUTH_JWKS_URL": "ftp://x"}, []string{"AUTH_JWKS_URL must be an http or https URL"}},
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
		})
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
