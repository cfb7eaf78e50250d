package deployments

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const natsValuesFile = "k8s/nats-values.yaml"

// natsValues is the part of the NATS Helm chart's (nats/nats 1.x) values
// the executors depend on.
type natsValues struct {
	Config struct {
		Cluster struct {
			Enabled  bool `yaml:"enabled"`
			Replicas int  `yaml:"replicas"`
		} `yaml:"cluster"`
		JetStream struct {
			Enabled   bool `yaml:"enabled"`
			FileStore struct {
				Enabled bool   `yaml:"enabled"`
				Dir     string `yaml:"dir"`
				PVC     struct {
					Enabled bool   `yaml:"enabled"`
					Size    string `yaml:"size"`
				} `yaml:"pvc"`
			} `yaml:"fileStore"`
			Merge map[string]any `yaml:"merge"`
		} `yaml:"jetstream"`
		Monitor struct {
			Enabled bool `yaml:"enabled"`
			Port    int  `yaml:"port"`
		} `yaml:"monitor"`
	} `yaml:"config"`
	Container struct {
		Image struct {
			Repository string `yaml:"repository"`
			Tag        string `yaml:"tag"`
		} `yaml:"image"`
	} `yaml:"container"`
	Service struct {
		Ports struct {
			Monitor struct {
				Enabled bool `yaml:"enabled"`
			} `yaml:"monitor"`
		} `yaml:"ports"`
	} `yaml:"service"`
}

// natsRelease is the Helm release name the values file and the manifests
// assume (helm install nats ...): the StatefulSet and its pods' prefix.
const natsRelease = "nats"

// The NATS cluster the Helm values make is the one the executors use: as
// many nodes as STREAM_REPLICAS, every pod in NATS_URL, JetStream on
// persistent file storage with a sync interval, the monitoring port KEDA
// reads, a nats-server at least the documented minimum.
func TestNATSHelmValuesMatchTheExecutor(t *testing.T) {
	var v natsValues
	decodeYAML(t, natsValuesFile, &v)
	exec := executorDeployment(t, loadKustomization(t, k8sBase))
	c := v.Config
	if !c.Cluster.Enabled || c.Cluster.Replicas < 3 {
		t.Errorf("%s: cluster enabled %v with %d nodes, want a cluster of 3 or more", natsValuesFile, c.Cluster.Enabled, c.Cluster.Replicas)
	}
	if exec.eff.replicas != c.Cluster.Replicas {
		t.Errorf("the executor's STREAM_REPLICAS is %d on a %d-node cluster: make them equal (R3 on 3 nodes)", exec.eff.replicas, c.Cluster.Replicas)
	}
	var want []string
	for i := range c.Cluster.Replicas {
		want = append(want, fmt.Sprintf("%s-%d.%s-headless", natsRelease, i, natsRelease))
	}
	var hosts []string
	for _, u := range exec.eff.natsServers {
		host, port := hostPort(t, "executor NATS_URL", u)
		hosts = append(hosts, host)
		if port != 4222 {
			t.Errorf("executor NATS_URL %s: port %d, the chart's client port is 4222", u, port)
		}
	}
	if !slices.Equal(hosts, want) {
		t.Errorf("executor NATS_URL names %v, want every pod of the StatefulSet: %v", hosts, want)
	}
	if !c.JetStream.Enabled || !c.JetStream.FileStore.Enabled || !c.JetStream.FileStore.PVC.Enabled || c.JetStream.FileStore.PVC.Size == "" {
		t.Errorf("%s: JetStream %v, file store %v, its PVC %v (size %q): want all on, the streams are file-backed",
			natsValuesFile, c.JetStream.Enabled, c.JetStream.FileStore.Enabled, c.JetStream.FileStore.PVC.Enabled, c.JetStream.FileStore.PVC.Size)
	}
	if sync := fmt.Sprint(c.JetStream.Merge["sync_interval"]); sync != "always" {
		d, err := time.ParseDuration(sync)
		if err != nil || d <= 0 || d > 2*time.Minute {
			t.Errorf("%s: jetstream sync_interval %q: set it (a duration up to the 2m default, or always) and say why", natsValuesFile, sync)
		}
	}
	if !c.Monitor.Enabled || c.Monitor.Port != natsMonitoringPort || !v.Service.Ports.Monitor.Enabled {
		t.Errorf("%s: monitoring %v on port %d (Service port %v): KEDA reads the lag on %d", natsValuesFile,
			c.Monitor.Enabled, c.Monitor.Port, v.Service.Ports.Monitor.Enabled, natsMonitoringPort)
	}
	if v.Container.Image.Repository != "nats" {
		t.Errorf("%s: image %s, want the official nats image", natsValuesFile, v.Container.Image.Repository)
	}
	checkNATSVersion(t, natsValuesFile, v.Container.Image.Tag)
}

// The base's prerequisites and the deployments README name the values
// file, so an operator finds it.
func TestNATSHelmValuesAreDocumented(t *testing.T) {
	for _, f := range []string{filepath.Join(k8sBase, "kustomization.yaml"), "README.md"} {
		if !strings.Contains(string(readFile(t, f)), "nats-values.yaml") {
			t.Errorf("%s does not mention %s", f, natsValuesFile)
		}
	}
}
