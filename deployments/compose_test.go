package deployments

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/flowscript/flowscript/flowjob"
)

type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

type composeService struct {
	Image string `yaml:"image"`
	Build *struct {
		Context    string `yaml:"context"`
		Dockerfile string `yaml:"dockerfile"`
		Target     string `yaml:"target"`
	} `yaml:"build"`
	User            string            `yaml:"user"`
	ReadOnly        bool              `yaml:"read_only"`
	Command         []string          `yaml:"command"`
	Environment     map[string]string `yaml:"environment"`
	Ports           []string          `yaml:"ports"`
	Volumes         []string          `yaml:"volumes"`
	StopGracePeriod string            `yaml:"stop_grace_period"`
	Profiles        []string          `yaml:"profiles"`
	DependsOn       dependsOn         `yaml:"depends_on"`
}

// dependsOn is compose's depends_on, a list of names or a map of names to
// conditions.
type dependsOn map[string]string

func (d *dependsOn) UnmarshalYAML(n *yaml.Node) error {
	*d = dependsOn{}
	switch n.Kind {
	case yaml.SequenceNode:
		var names []string
		if err := n.Decode(&names); err != nil {
			return err
		}
		for _, name := range names {
			(*d)[name] = "service_started"
		}
		return nil
	case yaml.MappingNode:
		var m map[string]struct {
			Condition string `yaml:"condition"`
		}
		if err := n.Decode(&m); err != nil {
			return err
		}
		for name, c := range m {
			(*d)[name] = c.Condition
		}
		return nil
	}
	return fmt.Errorf("depends_on must be a list or a map, got %v", n.Tag)
}

const composeDir = "compose"

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	var c composeFile
	decodeYAML(t, filepath.Join(composeDir, "compose.yaml"), &c)
	if len(c.Services) == 0 {
		t.Fatal("compose.yaml has no services")
	}
	return c
}

// composeVar is compose's ${NAME}, ${NAME:-default} or ${NAME-default}.
var composeVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}`)

// interpolate resolves compose variables to their defaults: the file must
// run with no .env. A variable without a default fails the test.
func interpolate(t *testing.T, where, s string) string {
	t.Helper()
	return composeVar.ReplaceAllStringFunc(s, func(m string) string {
		sub := composeVar.FindStringSubmatch(m)
		if !strings.Contains(m, "-") {
			t.Errorf("%s: %s has no default; write ${%s:-value} so the stack starts without a .env", where, m, sub[1])
		}
		return sub[2]
	})
}

// composeServiceFor says which FlowScript service a compose service runs
// (by its Dockerfile target), or false for a third-party one.
func composeServiceFor(t *testing.T, name string, cs composeService) (service, bool) {
	t.Helper()
	if cs.Build == nil || filepath.Base(cs.Build.Dockerfile) != "Dockerfile" {
		return service{}, false
	}
	for _, s := range services {
		if cs.Build.Target == s.target {
			return s, true
		}
	}
	t.Errorf("compose service %s builds Dockerfile target %q, which is no FlowScript service", name, cs.Build.Target)
	return service{}, false
}

// containerPorts are the container sides of a service's port mappings
// ("127.0.0.1:9091:9090" → 9090).
func containerPorts(t *testing.T, name string, cs composeService) []int {
	t.Helper()
	var ports []int
	for _, p := range cs.Ports {
		parts := strings.Split(p, ":")
		n, err := strconv.Atoi(strings.TrimSuffix(parts[len(parts)-1], "/tcp"))
		if err != nil {
			t.Errorf("compose service %s: port mapping %q has no numeric container port", name, p)
			continue
		}
		ports = append(ports, n)
	}
	return ports
}

// hostPort splits the host and port of a URL such as nats://nats:4222.
func hostPort(t *testing.T, where, raw string) (string, int) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" || u.Port() == "" {
		t.Fatalf("%s: %q is not a URL with a host and a port", where, raw)
	}
	n, _ := strconv.Atoi(u.Port())
	return u.Hostname(), n
}

func TestComposeFlowScriptServicesMatchTheCode(t *testing.T) {
	c := loadCompose(t)
	root := repoRoot(t)
	stages := dockerfileStages(t)
	executors := 0
	for name, cs := range c.Services {
		s, ok := composeServiceFor(t, name, cs)
		if !ok {
			continue
		}
		where := "compose service " + name
		if s.name == "executor" {
			executors++
		}
		t.Run(name, func(t *testing.T) {
			ctx, _ := filepath.Abs(filepath.Join(composeDir, cs.Build.Context))
			if ctx != root {
				t.Errorf("%s: build context %s is not the repository root %s", where, cs.Build.Context, root)
			}
			if got := filepath.Join(ctx, cs.Build.Dockerfile); got != filepath.Join(root, "deployments", "docker", "Dockerfile") {
				t.Errorf("%s: dockerfile %s is not deployments/docker/Dockerfile", where, cs.Build.Dockerfile)
			}
			if !slices.Contains(stages, cs.Build.Target) {
				t.Errorf("%s: Dockerfile has no stage %q (stages: %v)", where, cs.Build.Target, stages)
			}
			env := map[string]string{}
			for k, v := range cs.Environment {
				env[k] = interpolate(t, where+" "+k, v)
			}
			eff := checkServiceEnv(t, where, s, env)

			port := addrPort(t, where, eff.addr)
			if def := addrPort(t, s.name+" default address", eff.defaultAddr); port != def {
				t.Errorf("%s: listens on %d, the code's default is %d: keep the default so the docs hold", where, port, def)
			}
			if got := containerPorts(t, name, cs); !slices.Equal(got, []int{port}) {
				t.Errorf("%s: publishes container ports %v, want [%d] (its listen address %s)", where, got, port, eff.addr)
			}
			if cs.User != "65532:65532" || !cs.ReadOnly {
				t.Errorf("%s: want user 65532:65532 and read_only: true, got user %q read_only %v", where, cs.User, cs.ReadOnly)
			}
			stop, err := time.ParseDuration(cs.StopGracePeriod)
			if err != nil {
				t.Fatalf("%s: stop_grace_period %q: %v", where, cs.StopGracePeriod, err)
			}
			if stop <= eff.stopBudget {
				t.Errorf("%s: stop_grace_period %s must exceed %s (the longest clean stop: shutdown grace plus the last acks, drain and telemetry flush)", where, stop, eff.stopBudget)
			}
			if endpoint, ok := env["OTEL_EXPORTER_OTLP_ENDPOINT"]; ok {
				host, p := hostPort(t, where, endpoint)
				if _, ok := c.Services[host]; !ok {
					t.Errorf("%s: OTEL_EXPORTER_OTLP_ENDPOINT names %s, which is no compose service", where, host)
				}
				if want := collectorOTLPHTTPPort(t); p != want {
					t.Errorf("%s: OTEL_EXPORTER_OTLP_ENDPOINT port %d, the collector's OTLP/HTTP receiver listens on %d", where, p, want)
				}
			}
			if s.name == "executor" {
				if eff.jobsStream != flowjob.DefaultJobsStream || eff.consumer != flowjob.DefaultConsumer {
					t.Errorf("%s: stream %q consumer %q, want flowjob's %q and %q", where, eff.jobsStream, eff.consumer, flowjob.DefaultJobsStream, flowjob.DefaultConsumer)
				}
				checkComposeNATSURL(t, c, name, cs, eff)
			}
			if dsn, ok := env["DATABASE_URL"]; ok {
				host, _ := hostPort(t, where+" DATABASE_URL", dsn)
				if _, ok := c.Services[host]; !ok {
					t.Errorf("%s: DATABASE_URL names %s, which is no compose service", where, host)
				}
			}
		})
	}
	if executors < 2 {
		t.Errorf("compose.yaml runs %d executor replicas, want at least 2", executors)
	}
}

// Prometheus scrapes exactly the executors, on their admin port, and the
// collector's Prometheus exporter, where templates-api's metrics are.
func TestComposePrometheusScrapesEveryExecutor(t *testing.T) {
	c := loadCompose(t)
	want := []string{"otel-collector:" + strconv.Itoa(collectorPrometheusPort(t))}
	for name, cs := range c.Services {
		if s, ok := composeServiceFor(t, name, cs); ok && s.name == "executor" {
			env := map[string]string{}
			for k, v := range cs.Environment {
				env[k] = interpolate(t, name, v)
			}
			eff, err := s.load(env)
			if err != nil {
				t.Fatalf("compose service %s: %v", name, err)
			}
			want = append(want, name+":"+strconv.Itoa(addrPort(t, name, eff.addr)))
		}
	}
	var prom struct {
		RuleFiles     []string `yaml:"rule_files"`
		ScrapeConfigs []struct {
			JobName       string `yaml:"job_name"`
			MetricsPath   string `yaml:"metrics_path"`
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	decodeYAML(t, filepath.Join(composeDir, "prometheus.yml"), &prom)
	var got []string
	for _, sc := range prom.ScrapeConfigs {
		if sc.MetricsPath != "" && sc.MetricsPath != "/metrics" {
			t.Errorf("prometheus.yml job %s scrapes %s, the executors serve /metrics", sc.JobName, sc.MetricsPath)
		}
		for _, st := range sc.StaticConfigs {
			got = append(got, st.Targets...)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("prometheus.yml scrapes %v, want the executors' admin ports and the collector's metrics %v", got, want)
	}
	// The rule files it loads are mounted from deployments/prometheus.
	mounted := mountTargets(t, c.Services["prometheus"])
	for _, f := range prom.RuleFiles {
		if _, ok := mounted[f]; !ok {
			t.Errorf("prometheus.yml loads %s, which the prometheus service does not mount", f)
		}
	}
}

// mountTargets maps each bind-mounted path in the container to its source
// on the host, relative to the compose folder.
func mountTargets(t *testing.T, cs composeService) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, v := range cs.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) < 2 || !strings.HasPrefix(parts[0], ".") {
			continue
		}
		m[parts[1]] = parts[0]
	}
	return m
}

// Every file the compose file mounts exists, and named volumes are
// declared.
func TestComposeMountsExist(t *testing.T) {
	c := loadCompose(t)
	for name, cs := range c.Services {
		for _, v := range cs.Volumes {
			src, _, _ := strings.Cut(v, ":")
			if strings.HasPrefix(src, ".") {
				if _, err := os.Stat(filepath.Join(composeDir, src)); err != nil {
					t.Errorf("compose service %s mounts %s: %v", name, src, err)
				}
				continue
			}
			if _, ok := c.Volumes[src]; !ok {
				t.Errorf("compose service %s uses volume %s, not declared under volumes:", name, src)
			}
		}
	}
}

func TestComposeInfrastructure(t *testing.T) {
	c := loadCompose(t)
	nats, ok := c.Services["nats"]
	if !ok {
		t.Fatal("compose.yaml has no nats service")
	}
	if !slices.Contains(nats.Command, "--jetstream") && !slices.Contains(nats.Command, "-js") {
		t.Errorf("nats runs %v, without JetStream (--jetstream)", nats.Command)
	}
	if len(nats.Volumes) == 0 {
		t.Error("nats keeps its JetStream store in the container: mount a volume on its --store_dir")
	}
	for _, p := range nats.Ports {
		if strings.HasSuffix(p, ":8222") && !strings.HasPrefix(p, "127.0.0.1:") {
			t.Errorf("nats publishes its monitoring port as %q: bind it to 127.0.0.1 only", p)
		}
	}
	for _, name := range []string{"postgres", "otel-collector", "prometheus", "grafana"} {
		if _, ok := c.Services[name]; !ok {
			t.Errorf("compose.yaml has no %s service", name)
		}
	}
	// The collector sends traces to a service that exists.
	var col struct {
		Exporters map[string]struct {
			Endpoint string `yaml:"endpoint"`
		} `yaml:"exporters"`
		Service struct {
			Pipelines map[string]struct {
				Exporters []string `yaml:"exporters"`
			} `yaml:"pipelines"`
		} `yaml:"service"`
	}
	decodeYAML(t, filepath.Join(composeDir, "otel-collector.yaml"), &col)
	traces, ok := col.Service.Pipelines["traces"]
	if !ok || len(traces.Exporters) == 0 {
		t.Fatal("otel-collector.yaml has no traces pipeline with an exporter")
	}
	for _, e := range traces.Exporters {
		exp, ok := col.Exporters[e]
		if !ok {
			t.Errorf("otel-collector.yaml: the traces pipeline uses exporter %s, which is not defined", e)
			continue
		}
		host, _, _ := strings.Cut(exp.Endpoint, ":")
		if _, ok := c.Services[host]; !ok {
			t.Errorf("otel-collector.yaml: exporter %s sends to %s, which is no compose service", e, exp.Endpoint)
		}
	}
}

// collectorPrometheusPort is the port the collector serves the metrics it
// receives on, for Prometheus; it fails the test when no metrics pipeline
// exports to it.
func collectorPrometheusPort(t *testing.T) int {
	t.Helper()
	var col struct {
		Exporters struct {
			Prometheus struct {
				Endpoint string `yaml:"endpoint"`
			} `yaml:"prometheus"`
		} `yaml:"exporters"`
		Service struct {
			Pipelines map[string]struct {
				Receivers []string `yaml:"receivers"`
				Exporters []string `yaml:"exporters"`
			} `yaml:"pipelines"`
		} `yaml:"service"`
	}
	decodeYAML(t, filepath.Join(composeDir, "otel-collector.yaml"), &col)
	metrics := col.Service.Pipelines["metrics"]
	if !slices.Contains(metrics.Receivers, "otlp") || !slices.Contains(metrics.Exporters, "prometheus") {
		t.Fatal("otel-collector.yaml has no metrics pipeline from otlp to prometheus: templates-api pushes its metrics over OTLP, and they would be refused (404)")
	}
	return addrPort(t, "otel-collector.yaml exporters.prometheus.endpoint", col.Exporters.Prometheus.Endpoint)
}

// collectorOTLPHTTPPort is the port of the collector's OTLP/HTTP receiver.
func collectorOTLPHTTPPort(t *testing.T) int {
	t.Helper()
	var col struct {
		Receivers struct {
			OTLP struct {
				Protocols struct {
					HTTP struct {
						Endpoint string `yaml:"endpoint"`
					} `yaml:"http"`
				} `yaml:"protocols"`
			} `yaml:"otlp"`
		} `yaml:"receivers"`
	}
	decodeYAML(t, filepath.Join(composeDir, "otel-collector.yaml"), &col)
	return addrPort(t, "otel-collector.yaml receivers.otlp.protocols.http.endpoint", col.Receivers.OTLP.Protocols.HTTP.Endpoint)
}

// Grafana loads the dashboard from where the compose file mounts it, with
// the Prometheus datasource the dashboard defaults to.
func TestComposeGrafanaProvisioning(t *testing.T) {
	c := loadCompose(t)
	grafana := c.Services["grafana"]
	mounts := mountTargets(t, grafana)

	var providers struct {
		Providers []struct {
			Options struct {
				Path string `yaml:"path"`
			} `yaml:"options"`
		} `yaml:"providers"`
	}
	decodeYAML(t, filepath.Join(composeDir, "grafana", "provisioning", "dashboards", "dashboards.yaml"), &providers)
	if len(providers.Providers) != 1 {
		t.Fatalf("want one dashboard provider, got %d", len(providers.Providers))
	}
	dir := providers.Providers[0].Options.Path
	found := false
	for target, src := range mounts {
		if filepath.Dir(target) == dir && filepath.Base(src) == dashboardFile {
			found = true
		}
	}
	if !found {
		t.Errorf("the dashboard provider reads %s, where grafana mounts no %s (mounts: %v)", dir, dashboardFile, mounts)
	}
	if _, ok := mounts["/etc/grafana/provisioning"]; !ok {
		t.Error("grafana does not mount the provisioning folder on /etc/grafana/provisioning")
	}

	var ds struct {
		Datasources []struct {
			UID  string `yaml:"uid"`
			Type string `yaml:"type"`
			URL  string `yaml:"url"`
		} `yaml:"datasources"`
	}
	decodeYAML(t, filepath.Join(composeDir, "grafana", "provisioning", "datasources", "datasources.yaml"), &ds)
	want := dashboardDefaultDatasource(t)
	ok := false
	for _, d := range ds.Datasources {
		host, _ := hostPort(t, "datasource "+d.UID, d.URL)
		if _, exists := c.Services[host]; !exists {
			t.Errorf("datasource %s points at %s, which is no compose service", d.UID, d.URL)
		}
		if d.Type == "prometheus" && d.UID == want {
			ok = true
		}
	}
	if !ok {
		t.Errorf("no provisioned Prometheus datasource has uid %q, the dashboard's default", want)
	}
}
