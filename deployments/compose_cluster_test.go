package deployments

import (
	"flag"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// minNATSVersion is the documented minimum nats-server (README,
// "Brokers"): 2.9 can leave answered jobs below the consumer's ack floor
// and stale copies of JOBS on a node that was down, and has no
// sync_interval.
var minNATSVersion = [2]int{2, 10}

// natsImageVersion is the major and minor version of a nats image tag
// ("nats:2.11-alpine" → 2, 11).
func natsImageVersion(t *testing.T, where, tag string) [2]int {
	t.Helper()
	m := regexp.MustCompile(`^(\d+)\.(\d+)`).FindStringSubmatch(tag)
	if m == nil {
		t.Fatalf("%s: the nats image tag %q names no version such as 2.11: pin one (at least %d.%d)", where, tag, minNATSVersion[0], minNATSVersion[1])
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return [2]int{major, minor}
}

func checkNATSVersion(t *testing.T, where, tag string) {
	t.Helper()
	if v := natsImageVersion(t, where, tag); v[0] < minNATSVersion[0] || v[0] == minNATSVersion[0] && v[1] < minNATSVersion[1] {
		t.Errorf("%s runs nats-server %d.%d, below the documented minimum %d.%d", where, v[0], v[1], minNATSVersion[0], minNATSVersion[1])
	}
}

// natsServices are the compose services that run nats-server.
func natsServices(c composeFile) map[string]composeService {
	out := map[string]composeService{}
	for name, cs := range c.Services {
		if strings.HasPrefix(cs.Image, "nats:") {
			out[name] = cs
		}
	}
	return out
}

// runsWith reports whether dep is started whenever svc is: it has no
// profile, or every profile of svc is one of its own.
func runsWith(svc, dep composeService) bool {
	if len(dep.Profiles) == 0 {
		return true
	}
	if len(svc.Profiles) == 0 {
		return false
	}
	for _, p := range svc.Profiles {
		if !slices.Contains(dep.Profiles, p) {
			return false
		}
	}
	return true
}

// A service depends only on services that exist and start with it.
func TestComposeDependenciesStartWithTheirDependents(t *testing.T) {
	c := loadCompose(t)
	for name, cs := range c.Services {
		for dep := range cs.DependsOn {
			ds, ok := c.Services[dep]
			switch {
			case !ok:
				t.Errorf("compose service %s depends on %s, which is no service", name, dep)
			case !runsWith(cs, ds):
				t.Errorf("compose service %s (profiles %v) depends on %s (profiles %v), which does not start with it", name, cs.Profiles, dep, ds.Profiles)
			}
		}
	}
}

// Every nats-server the compose file runs is at least the documented
// minimum.
func TestComposeNATSVersion(t *testing.T) {
	for name, cs := range natsServices(loadCompose(t)) {
		_, tag, _ := strings.Cut(cs.Image, ":")
		checkNATSVersion(t, "compose service "+name, tag)
	}
}

// checkComposeNATSURL checks an executor's NATS_URL: each URL names a
// nats service that starts with the executor and that it waits for, and
// STREAM_REPLICAS above 1 names the nodes of one cluster, as many as the
// replicas at least.
func checkComposeNATSURL(t *testing.T, c composeFile, name string, cs composeService, eff effective) {
	t.Helper()
	where := "compose service " + name + " NATS_URL"
	if len(eff.natsServers) == 0 {
		t.Errorf("%s: the executor runs its embedded broker; point it at a nats service", where)
		return
	}
	nodes := map[string]bool{}
	for _, u := range eff.natsServers {
		host, _ := hostPort(t, where, u)
		ns, ok := natsServices(c)[host]
		switch {
		case !ok:
			t.Errorf("%s names %s, which is no nats service", where, host)
			continue
		case !runsWith(cs, ns):
			t.Errorf("%s names %s, which does not start with it (profiles %v and %v)", where, host, cs.Profiles, ns.Profiles)
		case cs.DependsOn[host] != "service_healthy":
			t.Errorf("%s names %s, which the executor does not wait for (depends_on with condition service_healthy)", where, host)
		}
		nodes[host] = true
	}
	if eff.replicas <= 1 {
		return
	}
	if len(nodes) < eff.replicas {
		t.Errorf("%s names %d nats services for STREAM_REPLICAS=%d: list every node", where, len(nodes), eff.replicas)
	}
	clusters := map[string]int{}
	for host := range nodes {
		opts := natsNodeOptions(t, host, c.Services[host])
		clusters[opts.Cluster.Name]++
	}
	for cluster, n := range clusters {
		if cluster == "" || len(clusters) != 1 || n < eff.replicas {
			t.Errorf("%s: STREAM_REPLICAS=%d needs the nodes of one cluster, got clusters %v", where, eff.replicas, clusters)
			break
		}
	}
}

// natsNodeOptions reads a nats service's command line, its configuration
// file included, with nats-server's own parser: what the server would run
// with.
func natsNodeOptions(t *testing.T, name string, cs composeService) *server.Options {
	t.Helper()
	mounts := mountTargets(t, cs)
	args := slices.Clone(cs.Command)
	for i, a := range args {
		if (a == "--config" || a == "-c") && i+1 < len(args) {
			src, ok := mounts[args[i+1]]
			if !ok {
				t.Fatalf("compose service %s reads %s, which it does not mount", name, args[i+1])
			}
			args[i+1] = filepath.Join(composeDir, src)
		}
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	noop := func() {}
	opts, err := server.ConfigureOptions(fs, args, noop, noop, noop)
	if err != nil {
		t.Fatalf("compose service %s: nats-server refuses its command line %v: %v", name, cs.Command, err)
	}
	return opts
}

// The cluster profile's nodes are one JetStream cluster as nats-server
// reads their configuration: unique names, routes to every node, a store
// on a volume of their own, a sync interval set, the monitoring port
// published on the loopback interface only.
func TestComposeNATSCluster(t *testing.T) {
	c := loadCompose(t)
	var nodes []string
	for name, cs := range natsServices(c) {
		if slices.Contains(cs.Profiles, "cluster") {
			nodes = append(nodes, name)
		}
	}
	slices.Sort(nodes)
	if len(nodes) != 3 {
		t.Fatalf("the cluster profile runs nats services %v, want 3 nodes", nodes)
	}
	names := map[string]bool{}
	clusterName := ""
	for _, name := range nodes {
		cs := c.Services[name]
		opts := natsNodeOptions(t, name, cs)
		where := "compose service " + name
		if !opts.JetStream {
			t.Errorf("%s: JetStream is off", where)
		}
		if opts.ServerName == "" || names[opts.ServerName] {
			t.Errorf("%s: server name %q is empty or another node's (JetStream clusters need unique names)", where, opts.ServerName)
		}
		names[opts.ServerName] = true
		if clusterName == "" {
			clusterName = opts.Cluster.Name
		}
		if opts.Cluster.Name == "" || opts.Cluster.Name != clusterName || opts.Cluster.Port == 0 {
			t.Errorf("%s: cluster %q on port %d, want the others' cluster %q on a port", where, opts.Cluster.Name, opts.Cluster.Port, clusterName)
		}
		var routes []string
		for _, r := range opts.Routes {
			if r.Port() != strconv.Itoa(opts.Cluster.Port) {
				t.Errorf("%s: route %s is not on the cluster port %d", where, r, opts.Cluster.Port)
			}
			routes = append(routes, r.Hostname())
		}
		slices.Sort(routes)
		if !slices.Equal(routes, nodes) {
			t.Errorf("%s: routes to %v, want every node %v", where, routes, nodes)
		}
		volume := ""
		for _, v := range cs.Volumes {
			src, target, _ := strings.Cut(v, ":")
			if strings.TrimSuffix(target, ":ro") == opts.StoreDir && !strings.HasPrefix(src, ".") {
				volume = src
			}
		}
		if _, ok := c.Volumes[volume]; !ok {
			t.Errorf("%s: its store %s is on no named volume of its own", where, opts.StoreDir)
		}
		if !opts.SyncAlways && (opts.SyncInterval <= 0 || opts.SyncInterval > time.Minute) {
			t.Errorf("%s: sync_interval %s: set it (at most 1m, or always) for nodes that share one host", where, opts.SyncInterval)
		}
		if opts.Port != 4222 || opts.HTTPPort != natsMonitoringPort {
			t.Errorf("%s: client port %d and monitoring port %d, want 4222 and %d", where, opts.Port, opts.HTTPPort, natsMonitoringPort)
		}
		for _, p := range cs.Ports {
			if strings.HasSuffix(p, ":"+strconv.Itoa(natsMonitoringPort)) && !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s publishes its monitoring port as %q: bind it to 127.0.0.1 only", where, p)
			}
		}
		if len(cs.Volumes) > 0 && c.Services[name].Profiles == nil {
			t.Errorf("%s has no profile: the cluster runs with --profile cluster only", where)
		}
	}
	// A node's store volume is its own.
	seen := map[string]string{}
	for _, name := range nodes {
		for _, v := range c.Services[name].Volumes {
			src, _, _ := strings.Cut(v, ":")
			if strings.HasPrefix(src, ".") {
				continue
			}
			if other, dup := seen[src]; dup {
				t.Errorf("compose services %s and %s share the volume %s", other, name, src)
			}
			seen[src] = name
		}
	}
	// The cluster profile has executors, with R3 streams.
	executors := 0
	for name, cs := range c.Services {
		if s, ok := composeServiceFor(t, name, cs); ok && s.name == "executor" && slices.Contains(cs.Profiles, "cluster") {
			env := map[string]string{}
			for k, v := range cs.Environment {
				env[k] = interpolate(t, name, v)
			}
			eff, err := s.load(env)
			if err != nil {
				t.Fatalf("compose service %s: %v", name, err)
			}
			if eff.replicas != len(nodes) {
				t.Errorf("compose service %s: STREAM_REPLICAS=%d on a %d-node cluster, want %d", name, eff.replicas, len(nodes), len(nodes))
			}
			executors++
		}
	}
	if executors < 2 {
		t.Errorf("the cluster profile runs %d executors, want at least 2", executors)
	}
}
