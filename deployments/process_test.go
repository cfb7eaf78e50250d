package deployments

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/telemetry"
	"github.com/flowscript/flowscript/internal/testenv"
)

// get polls url until it answers 200 or the deadline passes; a 404
// ends it at once (a route does not appear later).
func get(ctx context.Context, url string) (string, error) {
	client := &http.Client{Timeout: 2 * time.Second}
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close() // fully read
			if resp.StatusCode == http.StatusOK {
				return string(body), nil
			}
			err = fmt.Errorf("status %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
			if resp.StatusCode == http.StatusNotFound {
				return "", fmt.Errorf("GET %s: %w: the route does not exist", url, err)
			}
		}
		last = err
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("GET %s: %w (last answer: %w)", url, ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// The binaries the container build makes, run with each Deployment's
// environment (its broker or database swapped for the embedded one),
// answer the Deployment's probes and scrape path on its port, and stop on
// SIGTERM within terminationGracePeriodSeconds.
func TestBinariesAnswerTheDeploymentProbes(t *testing.T) {
	bin := buildLikeDockerfile(t)
	tree := loadKustomization(t, k8sBase)
	for _, d := range flowscriptDeployments(t, tree) {
		t.Run(d.obj.Metadata.Name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range d.env {
				env[k] = v
			}
			d.s.isolate(env, t.TempDir())
			if !slices.Contains(d.s.configVars, d.s.addrVar) {
				t.Fatalf("the %s reads no %s", d.s.name, d.s.addrVar)
			}
			addr := testenv.FreeAddr(t)
			env[d.s.addrVar] = addr
			if eff, err := d.s.load(env); err != nil || eff.addr != addr {
				t.Fatalf("%s=%s does not set the %s's listen address (got %q, %v)", d.s.addrVar, addr, d.s.name, eff.addr, err)
			}
			if _, ok := env["OTEL_EXPORTER_OTLP_ENDPOINT"]; ok {
				env["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:1"
			}

			cmd := exec.Command(filepath.Join(bin, d.s.target), d.s.runArgs...)
			cmd.Dir = t.TempDir()
			for k, v := range env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			var out testenv.SyncBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			stopped := false
			defer func() {
				if !stopped {
					_ = cmd.Process.Kill()
					t.Logf("%s killed at cleanup: %v", d.s.target, <-done)
				}
				if t.Failed() {
					t.Logf("%s output:\n%s", d.s.target, out.String())
				}
			}()

			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			base := "http://" + addr
			for _, p := range []*probe{d.c.StartupProbe, d.c.LivenessProbe, d.c.ReadinessProbe} {
				if p == nil || p.HTTPGet == nil {
					continue
				}
				if _, err := get(ctx, base+p.HTTPGet.Path); err != nil {
					t.Errorf("probe: %v", err)
				}
			}
			ann := d.d.Spec.Template.Metadata.Annotations
			if ann["prometheus.io/scrape"] == "true" {
				body, err := get(ctx, base+ann["prometheus.io/path"])
				if err != nil {
					t.Errorf("metrics: %v", err)
				} else if !strings.Contains(body, telemetry.MetricConsumerPending) {
					t.Errorf("GET %s answers without %s", ann["prometheus.io/path"], telemetry.MetricConsumerPending)
				}
			}

			grace := time.Duration(*d.d.Spec.Template.Spec.TerminationGracePeriodSeconds) * time.Second
			start := time.Now()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				stopped = true
				if err != nil {
					t.Errorf("%s exited with %v after SIGTERM, want 0", d.s.target, err)
				}
				t.Logf("%s stopped %s after SIGTERM (grace %s)", d.s.target, time.Since(start).Round(time.Millisecond), grace)
			case <-time.After(grace):
				t.Errorf("%s still runs %s after SIGTERM: Kubernetes would kill it", d.s.target, grace)
			}
		})
	}
}
