package deployments

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/telemetry"
)

const (
	k8sBase = "k8s/base"
	k8sHPA  = "k8s/hpa-prometheus"
	// nonRootUID is the distroless nonroot user the Dockerfile runs as.
	nonRootUID = 65532
	// Memory a sandbox worker may use beyond twice SANDBOX_MEMORY_MB: its
	// goroutine stack cap × 1.5 (24 MiB at the default call depth), 32 MiB
	// of runtime slack and its start-up footprint (workerpool's hardBudget),
	// rounded up; and what the parent process itself needs.
	workerOverheadBytes = 80 << 20
	parentBytes         = 256 << 20
)

type kustomization struct {
	Namespace          string   `yaml:"namespace"`
	Resources          []string `yaml:"resources"`
	ConfigMapGenerator []struct {
		Name string   `yaml:"name"`
		Envs []string `yaml:"envs"`
	} `yaml:"configMapGenerator"`
	Images []struct {
		Name string `yaml:"name"`
	} `yaml:"images"`
	Patches []struct {
		Patch string `yaml:"patch"`
		Path  string `yaml:"path"`
	} `yaml:"patches"`
}

// object is any Kubernetes manifest; spec is decoded per kind.
type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string            `yaml:"name"`
		Namespace string            `yaml:"namespace"`
		Labels    map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	node *yaml.Node
	file string
}

type probe struct {
	HTTPGet *struct {
		Path string      `yaml:"path"`
		Port intOrString `yaml:"port"`
	} `yaml:"httpGet"`
}

type container struct {
	Name    string `yaml:"name"`
	Image   string `yaml:"image"`
	EnvFrom []struct {
		ConfigMapRef *struct {
			Name string `yaml:"name"`
		} `yaml:"configMapRef"`
		SecretRef *struct {
			Name string `yaml:"name"`
		} `yaml:"secretRef"`
	} `yaml:"envFrom"`
	Env []struct {
		Name      string  `yaml:"name"`
		Value     *string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef *struct {
				Name     string `yaml:"name"`
				Key      string `yaml:"key"`
				Optional bool   `yaml:"optional"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	StartupProbe   *probe `yaml:"startupProbe"`
	ReadinessProbe *probe `yaml:"readinessProbe"`
	LivenessProbe  *probe `yaml:"livenessProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   bool  `yaml:"readOnlyRootFilesystem"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type deployment struct {
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"metadata"`
			Spec struct {
				TerminationGracePeriodSeconds *int `yaml:"terminationGracePeriodSeconds"`
				SecurityContext               struct {
					RunAsNonRoot bool `yaml:"runAsNonRoot"`
					RunAsUser    int  `yaml:"runAsUser"`
				} `yaml:"securityContext"`
				Containers []container `yaml:"containers"`
				Volumes    []struct {
					Name     string    `yaml:"name"`
					EmptyDir *struct{} `yaml:"emptyDir"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sService struct {
	Spec struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Port       int         `yaml:"port"`
			TargetPort intOrString `yaml:"targetPort"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

type scaledObject struct {
	Spec struct {
		ScaleTargetRef struct {
			Name string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
		MinReplicaCount *int `yaml:"minReplicaCount"`
		MaxReplicaCount int  `yaml:"maxReplicaCount"`
		Triggers        []struct {
			Type     string            `yaml:"type"`
			Metadata map[string]string `yaml:"metadata"`
		} `yaml:"triggers"`
	} `yaml:"spec"`
}

type pdb struct {
	Spec struct {
		MinAvailable   *intOrString `yaml:"minAvailable"`
		MaxUnavailable *intOrString `yaml:"maxUnavailable"`
		Selector       struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
	} `yaml:"spec"`
}

type networkPolicy struct {
	Spec struct {
		PodSelector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"podSelector"`
		PolicyTypes []string `yaml:"policyTypes"`
		Ingress     []struct {
			From []struct {
				PodSelector *struct {
					MatchLabels map[string]string `yaml:"matchLabels"`
				} `yaml:"podSelector"`
				NamespaceSelector *struct {
					MatchLabels map[string]string `yaml:"matchLabels"`
				} `yaml:"namespaceSelector"`
				IPBlock *struct{} `yaml:"ipBlock"`
			} `yaml:"from"`
			Ports []struct {
				Port intOrString `yaml:"port"`
			} `yaml:"ports"`
		} `yaml:"ingress"`
	} `yaml:"spec"`
}

type hpa struct {
	Spec struct {
		ScaleTargetRef struct {
			Kind string `yaml:"kind"`
			Name string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
		Metrics []struct {
			Type     string `yaml:"type"`
			External *struct {
				Metric struct {
					Name string `yaml:"name"`
				} `yaml:"metric"`
				Target struct {
					Type         string `yaml:"type"`
					AverageValue string `yaml:"averageValue"`
				} `yaml:"target"`
			} `yaml:"external"`
		} `yaml:"metrics"`
	} `yaml:"spec"`
}

func (o object) decode(t *testing.T, v any) {
	t.Helper()
	if err := o.node.Decode(v); err != nil {
		t.Fatalf("%s: decoding %s %s: %v", o.file, o.Kind, o.Metadata.Name, err)
	}
}

// k8sTree is a kustomization folder: its objects and generated config maps.
type k8sTree struct {
	dir        string
	k          kustomization
	objects    []object
	configMaps map[string]map[string]string // generator name → variables
}

func loadKustomization(t *testing.T, dir string) k8sTree {
	t.Helper()
	tree := k8sTree{dir: dir, configMaps: map[string]map[string]string{}}
	decodeYAML(t, filepath.Join(dir, "kustomization.yaml"), &tree.k)
	for _, r := range tree.k.Resources {
		path := filepath.Join(dir, r)
		if fi, err := os.Stat(path); err != nil {
			t.Fatalf("%s/kustomization.yaml lists %s: %v", dir, r, err)
		} else if fi.IsDir() {
			continue // another kustomization (an overlay's base)
		}
		for _, n := range yamlDocs(t, path) {
			var o object
			if err := n.Decode(&o); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
				t.Fatalf("%s: a document without apiVersion, kind or metadata.name", path)
			}
			o.node, o.file = n, path
			tree.objects = append(tree.objects, o)
		}
	}
	for _, g := range tree.k.ConfigMapGenerator {
		vars := map[string]string{}
		for _, f := range g.Envs {
			maps.Copy(vars, readEnvFile(t, filepath.Join(dir, f)))
		}
		tree.configMaps[g.Name] = vars
	}
	return tree
}

func (tr k8sTree) one(t *testing.T, kind, name string) object {
	t.Helper()
	for _, o := range tr.objects {
		if o.Kind == kind && (name == "" || o.Metadata.Name == name) {
			return o
		}
	}
	t.Fatalf("%s has no %s %s", tr.dir, kind, name)
	return object{}
}

func (tr k8sTree) all(kind string) []object {
	var out []object
	for _, o := range tr.objects {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

// Every YAML file in the base is listed, every listed file parses, and
// every env file is a generator's.
func TestKustomizeBaseIsComplete(t *testing.T) {
	tree := loadKustomization(t, k8sBase)
	files, _ := filepath.Glob(filepath.Join(k8sBase, "*.yaml"))
	for _, f := range files {
		name := filepath.Base(f)
		if name != "kustomization.yaml" && !slices.Contains(tree.k.Resources, name) {
			t.Errorf("%s is not listed in %s/kustomization.yaml", name, k8sBase)
		}
	}
	envs, _ := filepath.Glob(filepath.Join(k8sBase, "*.env"))
	for _, f := range envs {
		used := false
		for _, g := range tree.k.ConfigMapGenerator {
			used = used || slices.Contains(g.Envs, filepath.Base(f))
		}
		if !used {
			t.Errorf("%s is no configMapGenerator's env file", f)
		}
	}
	for _, kind := range []string{"Deployment", "PodDisruptionBudget", "Service", "ScaledObject", "NetworkPolicy"} {
		if len(tree.all(kind)) == 0 {
			t.Errorf("the base has no %s", kind)
		}
	}
	if len(tree.all("HorizontalPodAutoscaler")) != 0 {
		t.Error("the base has an HPA beside KEDA's ScaledObject: two autoscalers would fight over the executors")
	}
	for _, o := range tree.objects {
		if o.Metadata.Namespace != "" {
			t.Errorf("%s %s sets its own namespace; the kustomization's namespace %q applies to all", o.Kind, o.Metadata.Name, tree.k.Namespace)
		}
	}
}

// deployed is a FlowScript Deployment and what its service makes of its
// environment.
type deployed struct {
	obj object
	d   deployment
	c   container
	s   service
	env map[string]string
	eff effective
}

// secretPlaceholders stand in for the Secret values the operator creates:
// shaped like real ones so the service's validation runs.
var secretPlaceholders = map[string]string{
	"DATABASE_URL":    "postgres://flowscript:secret@postgres:5432/flowscript",
	"AUTH_API_KEYS":   "placeholder-api-key-0001",
	"AUTH_JWT_SECRET": "placeholder-jwt-secret-of-32-bytes-or-more",
	"AUTH_JWKS_URL":   "https://auth.example.com/.well-known/jwks.json",

	"CONTINUATION_KEY":          "placeholder-continuation-key-of-32-bytes-or-more",
	"CONTINUATION_PREVIOUS_KEY": "placeholder-previous-continuation-key-of-32-bytes",
}

func flowscriptDeployments(t *testing.T, tree k8sTree) []deployed {
	t.Helper()
	var out []deployed
	for _, o := range tree.all("Deployment") {
		var d deployment
		o.decode(t, &d)
		for _, c := range d.Spec.Template.Spec.Containers {
			i := slices.IndexFunc(services, func(s service) bool { return s.image == c.Image })
			if i < 0 {
				t.Errorf("Deployment %s runs image %q, which is no FlowScript image", o.Metadata.Name, c.Image)
				continue
			}
			s := services[i]
			where := "Deployment " + o.Metadata.Name
			env := map[string]string{}
			for _, ef := range c.EnvFrom {
				switch {
				case ef.ConfigMapRef != nil:
					vars, ok := tree.configMaps[ef.ConfigMapRef.Name]
					if !ok {
						t.Fatalf("%s: envFrom config map %s is not generated by the kustomization", where, ef.ConfigMapRef.Name)
					}
					maps.Copy(env, vars)
				case ef.SecretRef != nil:
					t.Errorf("%s: envFrom secretRef %s hides which variables it sets; list them under env with secretKeyRef", where, ef.SecretRef.Name)
				}
			}
			for _, e := range c.Env {
				switch {
				case e.Value != nil:
					env[e.Name] = *e.Value
				case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
					v, ok := secretPlaceholders[e.Name]
					if !ok {
						t.Errorf("%s: %s comes from a Secret this test has no placeholder for", where, e.Name)
					}
					env[e.Name] = v
				default:
					t.Errorf("%s: env %s has neither a value nor a secretKeyRef", where, e.Name)
				}
			}
			eff := checkServiceEnv(t, where, s, env)
			out = append(out, deployed{obj: o, d: d, c: c, s: s, env: env, eff: eff})
		}
	}
	for _, s := range services {
		if !slices.ContainsFunc(out, func(d deployed) bool { return d.s.name == s.name }) {
			t.Errorf("no Deployment runs the %s (image %s)", s.name, s.image)
		}
	}
	return out
}

func (d deployed) namedPort(t *testing.T, p intOrString) int {
	t.Helper()
	if p.Str == "" {
		return p.Int
	}
	for _, cp := range d.c.Ports {
		if cp.Name == p.Str {
			return cp.ContainerPort
		}
	}
	t.Errorf("Deployment %s: no container port named %s", d.obj.Metadata.Name, p.Str)
	return 0
}

func TestKustomizeDeploymentsMatchTheCode(t *testing.T) {
	tree := loadKustomization(t, k8sBase)
	for _, d := range flowscriptDeployments(t, tree) {
		t.Run(d.obj.Metadata.Name, func(t *testing.T) {
			where := "Deployment " + d.obj.Metadata.Name
			spec := d.d.Spec.Template.Spec

			// Ports: the listen address, its default, the container port,
			// the probes and the scrape annotation agree.
			port := addrPort(t, where, d.eff.addr)
			if def := addrPort(t, d.s.name, d.eff.defaultAddr); port != def {
				t.Errorf("%s: listens on %d, the code's default is %d", where, port, def)
			}
			if len(d.c.Ports) != 1 || d.c.Ports[0].ContainerPort != port {
				t.Errorf("%s: container ports %+v, want exactly %d", where, d.c.Ports, port)
			}
			for _, pr := range []struct {
				name string
				p    *probe
				path string
			}{
				{"readinessProbe", d.c.ReadinessProbe, "/readyz"},
				{"livenessProbe", d.c.LivenessProbe, "/healthz"},
				{"startupProbe", d.c.StartupProbe, "/healthz"},
			} {
				if pr.p == nil {
					if pr.name != "startupProbe" {
						t.Errorf("%s: no %s", where, pr.name)
					}
					continue
				}
				if pr.p.HTTPGet == nil || pr.p.HTTPGet.Path != pr.path || d.namedPort(t, pr.p.HTTPGet.Port) != port {
					t.Errorf("%s: %s must be GET %s on port %d", where, pr.name, pr.path, port)
				}
			}
			if ann, ok := d.d.Spec.Template.Metadata.Annotations["prometheus.io/port"]; ok && ann != strconv.Itoa(port) {
				t.Errorf("%s: prometheus.io/port %s, the admin port is %d", where, ann, port)
			}

			// Selector and pod labels.
			for k, v := range d.d.Spec.Selector.MatchLabels {
				if d.d.Spec.Template.Metadata.Labels[k] != v {
					t.Errorf("%s: selector %s=%s does not match the pod labels", where, k, v)
				}
			}

			// Shutdown: the pod outlives a job started just before SIGTERM
			// plus the grace the service gives it.
			if spec.TerminationGracePeriodSeconds == nil {
				t.Errorf("%s: no terminationGracePeriodSeconds", where)
			} else if got := time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second; got <= d.eff.stopBudget {
				t.Errorf("%s: terminationGracePeriodSeconds %s must exceed %s (the longest clean stop: shutdown grace plus the last acks, drain and telemetry flush)", where, got, d.eff.stopBudget)
			}

			// Memory for SANDBOX_MAX_PARALLEL workers.
			limit, err := quantityBytes(d.c.Resources.Limits["memory"])
			if err != nil {
				t.Fatalf("%s: resources.limits.memory: %v", where, err)
			}
			need := int64(d.eff.parallel)*(2*int64(d.eff.memoryMB)<<20+workerOverheadBytes) + parentBytes
			if limit < need {
				t.Errorf("%s: memory limit %s is below %d workers × (2 × %d MiB + %d MiB) + %d MiB = %d MiB",
					where, d.c.Resources.Limits["memory"], d.eff.parallel, d.eff.memoryMB, workerOverheadBytes>>20, parentBytes>>20, need>>20)
			}
			if req, err := quantityBytes(d.c.Resources.Requests["memory"]); err != nil || req > limit {
				t.Errorf("%s: memory request %q must be a quantity no larger than the limit", where, d.c.Resources.Requests["memory"])
			}
			if d.c.Resources.Requests["cpu"] == "" {
				t.Errorf("%s: no CPU request", where)
			}

			// Non-root, read-only, nothing to escalate to.
			sc := d.c.SecurityContext
			if !spec.SecurityContext.RunAsNonRoot || spec.SecurityContext.RunAsUser != nonRootUID {
				t.Errorf("%s: want runAsNonRoot and runAsUser %d", where, nonRootUID)
			}
			if !sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || !slices.Contains(sc.Capabilities.Drop, "ALL") {
				t.Errorf("%s: want readOnlyRootFilesystem, allowPrivilegeEscalation false and capabilities drop ALL", where)
			}
			if dir, ok := d.env["EXECUTOR_DATA_DIR"]; ok {
				mounted := false
				for _, m := range d.c.VolumeMounts {
					for _, v := range spec.Volumes {
						mounted = mounted || (m.Name == v.Name && m.MountPath == dir && v.EmptyDir != nil)
					}
				}
				if !mounted {
					t.Errorf("%s: EXECUTOR_DATA_DIR %s is not an emptyDir mount (the root file system is read-only)", where, dir)
				}
			}
			if d.s.name == "executor" && (d.eff.jobsStream != flowjob.DefaultJobsStream || d.eff.consumer != flowjob.DefaultConsumer) {
				t.Errorf("%s: stream %q consumer %q, want flowjob's %q and %q", where, d.eff.jobsStream, d.eff.consumer, flowjob.DefaultJobsStream, flowjob.DefaultConsumer)
			}
		})
	}
}

// Each Deployment has a PodDisruptionBudget that selects its pods and
// leaves some of them running; the API's Service reaches its port.
func TestKustomizePDBsAndServices(t *testing.T) {
	tree := loadKustomization(t, k8sBase)
	deps := flowscriptDeployments(t, tree)
	for _, d := range deps {
		labels := d.d.Spec.Template.Metadata.Labels
		covered := false
		for _, o := range tree.all("PodDisruptionBudget") {
			var p pdb
			o.decode(t, &p)
			if !selects(p.Spec.Selector.MatchLabels, labels) {
				continue
			}
			covered = true
			if p.Spec.MaxUnavailable == nil && p.Spec.MinAvailable == nil {
				t.Errorf("PodDisruptionBudget %s sets neither maxUnavailable nor minAvailable", o.Metadata.Name)
			}
		}
		if d.s.name == "executor" && !covered {
			t.Errorf("no PodDisruptionBudget selects the executor pods %v", labels)
		}
		if d.s.name != "templates-api" {
			continue
		}
		port := addrPort(t, "templates-api", d.eff.addr)
		exposed := false
		for _, o := range tree.all("Service") {
			var s k8sService
			o.decode(t, &s)
			if !selects(s.Spec.Selector, labels) {
				continue
			}
			exposed = true
			for _, p := range s.Spec.Ports {
				if d.namedPort(t, p.TargetPort) != port || p.Port != port {
					t.Errorf("Service %s: port %d → %s, want %d → the container's %d", o.Metadata.Name, p.Port, p.TargetPort, port, port)
				}
			}
		}
		if !exposed {
			t.Errorf("no Service selects the templates API pods %v", labels)
		}
	}
}

func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func executorDeployment(t *testing.T, tree k8sTree) deployed {
	t.Helper()
	for _, d := range flowscriptDeployments(t, tree) {
		if d.s.name == "executor" {
			return d
		}
	}
	t.Fatal("no executor Deployment")
	return deployed{}
}

// KEDA reads the lag of the stream and consumer the executor uses, and
// wants one replica per SANDBOX_MAX_PARALLEL pending jobs.
func TestKEDAScaledObjectMatchesTheExecutor(t *testing.T) {
	tree := loadKustomization(t, k8sBase)
	exec := executorDeployment(t, tree)
	o := tree.one(t, "ScaledObject", "")
	var so scaledObject
	o.decode(t, &so)
	if o.APIVersion != "keda.sh/v1alpha1" {
		t.Errorf("ScaledObject apiVersion %s, want keda.sh/v1alpha1", o.APIVersion)
	}
	if so.Spec.ScaleTargetRef.Name != exec.obj.Metadata.Name {
		t.Errorf("ScaledObject scales %s, the executor Deployment is %s", so.Spec.ScaleTargetRef.Name, exec.obj.Metadata.Name)
	}
	if so.Spec.MinReplicaCount == nil || *so.Spec.MinReplicaCount < 1 || so.Spec.MaxReplicaCount < *so.Spec.MinReplicaCount {
		t.Errorf("ScaledObject replicas min %v max %d: want 1 ≤ min ≤ max", so.Spec.MinReplicaCount, so.Spec.MaxReplicaCount)
	}
	if len(so.Spec.Triggers) != 1 || so.Spec.Triggers[0].Type != "nats-jetstream" {
		t.Fatalf("ScaledObject triggers %+v, want one nats-jetstream trigger", so.Spec.Triggers)
	}
	md := so.Spec.Triggers[0].Metadata
	for _, tc := range []struct{ field, got, want string }{
		{"stream", md["stream"], exec.eff.jobsStream},
		{"stream (flowjob default)", md["stream"], flowjob.DefaultJobsStream},
		{"consumer", md["consumer"], exec.eff.consumer},
		{"consumer (flowjob default)", md["consumer"], flowjob.DefaultConsumer},
		{"lagThreshold (SANDBOX_MAX_PARALLEL)", md["lagThreshold"], strconv.Itoa(exec.eff.parallel)},
		{"account", md["account"], "$G"},
		{"natsServerMonitoringEndpoint", md["natsServerMonitoringEndpoint"], natsMonitoringEndpoint(t, tree, exec)},
	} {
		if tc.got != tc.want {
			t.Errorf("nats-jetstream trigger %s = %q, want %q", tc.field, tc.got, tc.want)
		}
	}
}

// natsMonitoringEndpoint is the fully qualified name KEDA's operator, in
// its own namespace, must use for the NATS the executor connects to, on
// the monitoring port: the Service NATS_URL names, or, when it lists the
// pods of a StatefulSet (<pod>.<headless service>), their headless
// Service, where KEDA finds the consumer's leader as <pod>.<endpoint>.
func natsMonitoringEndpoint(t *testing.T, tree k8sTree, exec deployed) string {
	t.Helper()
	service := ""
	for _, u := range exec.eff.natsServers {
		host, _ := hostPort(t, "executor NATS_URL", u)
		svc := host
		if pod, rest, ok := strings.Cut(host, "."); ok {
			svc, _, _ = strings.Cut(rest, ".")
			if len(exec.eff.natsServers) == 1 {
				svc = pod // a Service's name with its namespace
			}
		}
		if service != "" && svc != service {
			t.Errorf("executor NATS_URL names the Services %s and %s: list the pods of one NATS cluster", service, svc)
		}
		service = svc
	}
	return service + "." + tree.k.Namespace + ".svc.cluster.local:" + strconv.Itoa(natsMonitoringPort)
}

const natsMonitoringPort = 8222

// The NATS monitoring port answers KEDA's namespace only; nothing else
// opens it.
func TestNetworkPolicyKeepsNATSMonitoringPrivate(t *testing.T) {
	tree := loadKustomization(t, k8sBase)
	o := tree.one(t, "NetworkPolicy", "")
	var np networkPolicy
	o.decode(t, &np)
	if len(np.Spec.PodSelector.MatchLabels) == 0 {
		t.Fatal("the NetworkPolicy selects every pod of the namespace; select the NATS pods")
	}
	if !slices.Contains(np.Spec.PolicyTypes, "Ingress") {
		t.Fatal("the NetworkPolicy does not restrict Ingress")
	}
	opened := false
	for i, rule := range np.Spec.Ingress {
		has8222 := len(rule.Ports) == 0 // no ports: every port
		for _, p := range rule.Ports {
			has8222 = has8222 || p.Port.Int == natsMonitoringPort || p.Port.Str == "monitor"
		}
		if !has8222 {
			continue
		}
		if len(rule.From) == 0 {
			t.Errorf("ingress rule %d opens the monitoring port to every source", i)
			continue
		}
		for _, f := range rule.From {
			ns := ""
			if f.NamespaceSelector != nil {
				ns = f.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"]
			}
			if ns != "keda" || f.PodSelector != nil || f.IPBlock != nil {
				t.Errorf("ingress rule %d opens the monitoring port to %+v; only the keda namespace may reach it", i, f)
				continue
			}
			opened = true
		}
	}
	if !opened {
		t.Error("no ingress rule lets KEDA's namespace reach the NATS monitoring port 8222: the ScaledObject could not read the lag")
	}
	// The client port stays open, or the executors could not connect.
	exec := executorDeployment(t, tree)
	for _, u := range exec.eff.natsServers {
		_, natsPort := hostPort(t, "executor NATS_URL", u)
		clientOpen := false
		for _, rule := range np.Spec.Ingress {
			for _, p := range rule.Ports {
				clientOpen = clientOpen || p.Port.Int == natsPort
			}
		}
		if !clientOpen {
			t.Errorf("the NetworkPolicy closes the NATS client port %d the executors connect to", natsPort)
		}
	}
}

// The Prometheus alternative: an HPA on the pending metric, through
// prometheus-adapter, replacing (not joining) the ScaledObject.
func TestHPAOverlayMatchesTheExecutor(t *testing.T) {
	tree := loadKustomization(t, k8sHPA)
	base := loadKustomization(t, k8sBase)
	exec := executorDeployment(t, base)

	if !slices.Contains(tree.k.Resources, "../base") {
		t.Errorf("%s does not build on ../base", k8sHPA)
	}
	if tree.k.Namespace != base.k.Namespace {
		t.Errorf("%s puts its HPA in namespace %q, the Deployment is in %q", k8sHPA, tree.k.Namespace, base.k.Namespace)
	}
	so := base.one(t, "ScaledObject", "")
	deleted := false
	for _, p := range tree.k.Patches {
		var o object
		if err := yaml.Unmarshal([]byte(p.Patch), &o); err != nil {
			t.Fatalf("%s patch: %v", k8sHPA, err)
		}
		var directive struct {
			Patch string `yaml:"$patch"`
		}
		_ = yaml.Unmarshal([]byte(p.Patch), &directive)
		deleted = deleted || (directive.Patch == "delete" && o.Kind == "ScaledObject" && o.Metadata.Name == so.Metadata.Name)
	}
	if !deleted {
		t.Errorf("%s keeps the base's ScaledObject %s: KEDA and the HPA would both scale the executors", k8sHPA, so.Metadata.Name)
	}

	o := tree.one(t, "HorizontalPodAutoscaler", "")
	var h hpa
	o.decode(t, &h)
	if h.Spec.ScaleTargetRef.Kind != "Deployment" || h.Spec.ScaleTargetRef.Name != exec.obj.Metadata.Name {
		t.Errorf("the HPA scales %s %s, want Deployment %s", h.Spec.ScaleTargetRef.Kind, h.Spec.ScaleTargetRef.Name, exec.obj.Metadata.Name)
	}
	if len(h.Spec.Metrics) != 1 || h.Spec.Metrics[0].External == nil {
		t.Fatalf("the HPA has metrics %+v, want one External metric", h.Spec.Metrics)
	}
	ext := h.Spec.Metrics[0].External
	if ext.Metric.Name != telemetry.MetricConsumerPending {
		t.Errorf("the HPA reads %s, want %s", ext.Metric.Name, telemetry.MetricConsumerPending)
	}
	if ext.Target.Type != "AverageValue" || ext.Target.AverageValue != strconv.Itoa(exec.eff.parallel) {
		t.Errorf("the HPA target is %s %s, want AverageValue %d (SANDBOX_MAX_PARALLEL)", ext.Target.Type, ext.Target.AverageValue, exec.eff.parallel)
	}

	// prometheus-adapter serves the metric under the name the HPA asks for.
	rules := adapterRules(t)
	if !slices.ContainsFunc(rules, func(r adapterRule) bool { return r.Name.As == ext.Metric.Name }) {
		t.Errorf("prometheus-adapter-values.yaml exposes no external metric named %s", ext.Metric.Name)
	}
}

type adapterRule struct {
	SeriesQuery string `yaml:"seriesQuery"`
	MetricsQry  string `yaml:"metricsQuery"`
	Name        struct {
		Matches string `yaml:"matches"`
		As      string `yaml:"as"`
	} `yaml:"name"`
}

func adapterRules(t *testing.T) []adapterRule {
	t.Helper()
	var values struct {
		Rules struct {
			External []adapterRule `yaml:"external"`
		} `yaml:"rules"`
	}
	decodeYAML(t, filepath.Join(k8sHPA, "prometheus-adapter-values.yaml"), &values)
	if len(values.Rules.External) == 0 {
		t.Fatal("prometheus-adapter-values.yaml has no rules.external")
	}
	return values.Rules.External
}
