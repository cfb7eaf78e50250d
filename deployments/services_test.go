package deployments

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/executorapp"
	"github.com/flowscript/flowscript/internal/sandbox"
	"github.com/flowscript/flowscript/internal/telemetry"
	"github.com/flowscript/flowscript/internal/templatesapi"
)

// A FlowScript service as the manifests see it: which variables it reads
// and what its configuration comes to for a given environment. Everything
// here is derived from the code, never copied from it.
type service struct {
	name string
	// image is the image name the Kubernetes manifests use, and target the
	// Dockerfile stage that builds it.
	image, target string
	// addrVar sets the listen address the manifests expose; runArgs are
	// the flags a test run adds (no demo jobs); isolate rewrites a
	// manifest's environment so the service runs alone in dir.
	addrVar string
	runArgs []string
	isolate func(env map[string]string, dir string)
	// configVars are the variables the service's Config reads: its env
	// tags plus sandbox.EnvVars.
	configVars []string
	// load reads env through the service's own ConfigFromEnv.
	load func(env map[string]string) (effective, error)
}

// effective is the part of a service's configuration the manifests must
// agree with.
type effective struct {
	addr        string // the listen address whose port the manifests expose
	parallel    int    // SANDBOX_MAX_PARALLEL
	memoryMB    int    // SANDBOX_MEMORY_MB
	timeout     time.Duration
	stopBudget  time.Duration // how long a clean stop may take at most, before kill margins
	jobsStream  string        // executor only
	consumer    string        // executor only
	replicas    int           // executor only: STREAM_REPLICAS
	natsServers []string      // executor only: the URLs of NATS_URL
	defaultAddr string        // the listen address with no variable set
}

// templatesShutdownGrace mirrors internal/templatesapi's unexported
// shutdownGrace (run.go): in-flight requests get the sandbox timeout plus
// this after SIGTERM.
const templatesShutdownGrace = 5 * time.Second

var services = []service{
	{
		name: "executor", image: "flowscript/executor", target: "executor",
		addrVar: "ADMIN_ADDR", runArgs: []string{"-demo", "off"},
		isolate: func(env map[string]string, dir string) {
			delete(env, "NATS_URL") // the embedded broker: one node
			delete(env, "NATS_CREDS")
			delete(env, "STREAM_REPLICAS")
			env["EXECUTOR_DATA_DIR"] = dir
		},
		configVars: append(envTags(reflect.TypeFor[executorapp.Config]()), sandbox.EnvVars...),
		load: func(env map[string]string) (effective, error) {
			c, err := executorapp.ConfigFromEnv(getenvFrom(env))
			if err != nil {
				return effective{}, err
			}
			def, err := executorapp.ConfigFromEnv(getenvFrom(nil))
			if err != nil {
				return effective{}, fmt.Errorf("the executor's defaults do not validate: %w", err)
			}
			cc := c.Consumer()
			return effective{
				addr: c.AdminAddr, defaultAddr: def.AdminAddr,
				parallel: c.Limits.MaxParallel, memoryMB: c.Limits.MemoryMB, timeout: c.Limits.Timeout,
				stopBudget: cc.ShutdownGrace + executorapp.StopOverhead,
				jobsStream: cc.JobsStream, consumer: cc.Consumer,
				replicas: cc.Replicas, natsServers: c.NATSServers(),
			}, nil
		},
	},
	{
		name: "templates-api", image: "flowscript/templates-api", target: "templates-api",
		addrVar: "TEMPLATES_ADDR",
		isolate: func(env map[string]string, dir string) {
			delete(env, "DATABASE_URL") // the embedded store
			env["TEMPLATES_DATA_DIR"] = dir
		},
		configVars: append(envTags(reflect.TypeFor[templatesapi.Config]()), sandbox.EnvVars...),
		load: func(env map[string]string) (effective, error) {
			c, err := templatesapi.ConfigFromEnv(getenvFrom(env))
			if err != nil {
				return effective{}, err
			}
			// The defaults need credentials to validate; WithDefaults alone
			// gives the default address.
			def := templatesapi.Config{}.WithDefaults()
			return effective{
				addr: c.Addr, defaultAddr: def.Addr,
				parallel: c.Sandbox.MaxParallel, memoryMB: c.Sandbox.MemoryMB, timeout: c.Sandbox.Timeout,
				stopBudget: c.Sandbox.Timeout + templatesShutdownGrace,
			}, nil
		},
	},
}

func serviceNamed(t *testing.T, name string) service {
	t.Helper()
	for _, s := range services {
		if s.name == name {
			return s
		}
	}
	t.Fatalf("no service %q", name)
	return service{}
}

// envTags lists the `env` tags of a struct type, walking nested structs.
func envTags(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if name := f.Tag.Get("env"); name != "" {
			names = append(names, name)
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			names = append(names, envTags(f.Type)...)
		}
	}
	return names
}

// otelVarsRead runs telemetry.Setup, which both services use for traces
// and metrics, on env and returns the OTEL_* variables it asked for. A
// manifest that sets one it does not ask for sets it for nothing.
func otelVarsRead(t *testing.T, serviceName string, env map[string]string) []string {
	t.Helper()
	var mu sync.Mutex
	asked := map[string]bool{}
	getenv := func(name string) string {
		mu.Lock()
		defer mu.Unlock()
		asked[name] = true
		v := env[name]
		// Nothing is exported from a test: a refused local port instead of
		// the manifest's collector, which does not resolve here.
		if v != "" && strings.HasPrefix(name, "OTEL_EXPORTER_OTLP_") && strings.HasSuffix(name, "ENDPOINT") {
			v = "http://127.0.0.1:1"
		}
		return v
	}
	p, err := telemetry.Setup(context.Background(), telemetry.Config{
		ServiceName: "flowscript-" + serviceName,
		Getenv:      getenv,
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("%s: telemetry.Setup refuses the manifest's OTEL_* variables: %v", serviceName, err)
	}
	// A final push, if the manifest asks for one, fails on the refused port:
	// what matters here is what Setup read.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_ = p.Shutdown(ctx)
	mu.Lock()
	defer mu.Unlock()
	return slices.Sorted(maps.Keys(asked))
}

// checkEnv reports every variable of env that s does not read. otelRead
// are the OTEL_* variables telemetry.Setup read with this env.
func checkEnv(s service, env map[string]string, otelRead []string) error {
	var unknown []string
	for name := range env {
		if !slices.Contains(s.configVars, name) && !slices.Contains(otelRead, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return fmt.Errorf("the %s reads no variable named %s (its Config reads %s; telemetry reads %s)",
		s.name, strings.Join(unknown, ", "), strings.Join(s.configVars, " "), strings.Join(otelRead, " "))
}

// checkServiceEnv checks env, the variables a manifest gives service s,
// and returns what s makes of them.
func checkServiceEnv(t *testing.T, where string, s service, env map[string]string) effective {
	t.Helper()
	if err := checkEnv(s, env, otelVarsRead(t, s.name, env)); err != nil {
		t.Errorf("%s: %v", where, err)
	}
	eff, err := s.load(env)
	if err != nil {
		t.Fatalf("%s: the %s refuses this environment: %v", where, s.name, err)
	}
	return eff
}

// A renamed variable must fail: the check knows the code's names, not a
// copy of them.
func TestCheckEnvRejectsRenamedVariables(t *testing.T) {
	exec := serviceNamed(t, "executor")
	api := serviceNamed(t, "templates-api")
	otel := otelVarsRead(t, "executor", map[string]string{"OTEL_SERVICE_NAME": "x"})
	for _, tc := range []struct {
		name string
		s    service
		env  map[string]string
		ok   bool
	}{
		{"executor names", exec, map[string]string{"NATS_URL": "nats://n:4222", "SANDBOX_MAX_PARALLEL": "8", "ADMIN_ADDR": ":9090"}, true},
		{"OTEL name telemetry reads", exec, map[string]string{"OTEL_SERVICE_NAME": "x"}, true},
		{"renamed NATS_URL", exec, map[string]string{"NATS_URI": "nats://n:4222"}, false},
		{"renamed sandbox limit", exec, map[string]string{"SANDBOX_PARALLEL": "8"}, false},
		{"another service's variable", exec, map[string]string{"TEMPLATES_ADDR": ":8081"}, false},
		{"OTEL name telemetry ignores", exec, map[string]string{"OTEL_EXPORTER_OTLP_ENDPONT": "http://c:4318"}, false},
		{"templates names", api, map[string]string{"FLOW_AI_CORE_BASE_PATH": "/api", "AUTH_API_KEYS": "k", "SANDBOX_TIMEZONE": "UTC"}, true},
		{"renamed base path", api, map[string]string{"BASE_PATH": "/api"}, false},
		{"executor's variable on the API", api, map[string]string{"ADMIN_ADDR": ":9090"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkEnv(tc.s, tc.env, otel)
			if tc.ok && err != nil {
				t.Errorf("want accepted, got %v", err)
			}
			if !tc.ok && err == nil {
				t.Errorf("want refused, got accepted")
			}
		})
	}
}

// The env tags are the code's list; make sure the walk finds them.
func TestEnvTagsFindTheConfigVariables(t *testing.T) {
	for _, s := range services {
		if len(s.configVars) <= len(sandbox.EnvVars) {
			t.Errorf("%s: found no env tags on its Config (%v)", s.name, s.configVars)
		}
		eff, err := s.load(map[string]string{
			// The API needs credentials to validate.
			"AUTH_API_KEYS": "placeholder-key-for-tests",
		})
		if err != nil {
			t.Fatalf("%s: defaults do not validate: %v", s.name, err)
		}
		if eff.addr != eff.defaultAddr || eff.addr == "" {
			t.Errorf("%s: with no variable the address is %q, the default %q", s.name, eff.addr, eff.defaultAddr)
		}
	}
}
