package executorapp

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/capabilities"
	"github.com/flowscript/flowscript/internal/capabilities/httpapi"
	"github.com/flowscript/flowscript/internal/capabilities/sessionkv"
	"github.com/flowscript/flowscript/internal/pause"
)

// loadCapabilities builds the host functions of CAPABILITIES_POLICY_FILE:
// its connectors (secrets read from this process's environment and files)
// and, when a tenant may use kv, the session store on the broker (its
// bucket provisioned, retried until the broker answers). With no file,
// nothing is granted.
func loadCapabilities(ctx context.Context, cfg Config, nc *nats.Conn, log *slog.Logger) (*capabilities.Capabilities, error) {
	if cfg.CapabilitiesPolicyFile == "" {
		return capabilities.New(nil, nil, nil), nil
	}
	data, err := os.ReadFile(cfg.CapabilitiesPolicyFile)
	if err != nil {
		return nil, fmt.Errorf("reading CAPABILITIES_POLICY_FILE: %w", err)
	}
	policy, err := capabilities.ParsePolicy(data)
	if err == nil {
		err = policy.FitsHostBytes(cfg.Limits.MaxHostBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("CAPABILITIES_POLICY_FILE %s: %w", cfg.CapabilitiesPolicyFile, err)
	}
	api, err := httpapi.New(policy.Connectors, os.Getenv, os.ReadFile)
	if err != nil {
		return nil, fmt.Errorf("CAPABILITIES_POLICY_FILE %s: connectors: %w", cfg.CapabilitiesPolicyFile, err)
	}
	var kv sessionkv.Store
	if policy.UsesKV() {
		if kv, err = openKV(ctx, cfg, nc, log); err != nil {
			return nil, err
		}
	}
	log.Info("capabilities policy loaded", "file", cfg.CapabilitiesPolicyFile,
		"tenants", len(policy.Tenants), "connectors", len(policy.Connectors), "kv", kv != nil)
	if cfg.ContinuationKey == "" && policy.Allows(flowjob.CapabilityApproval) {
		log.Warn("the capabilities policy grants approval, but CONTINUATION_KEY is not set: approval.request throws CAPABILITY_DENIED on this executor; set the same key on every replica",
			"file", cfg.CapabilitiesPolicyFile)
	}
	return capabilities.New(policy, api, kv), nil
}

// openKV opens the session store, applying its settings to the bucket (a
// replica applies its settings when it starts, like its streams), and
// waits for a broker that is down.
func openKV(ctx context.Context, cfg Config, nc *nats.Conn, log *slog.Logger) (sessionkv.Store, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("opening JetStream: %w", err)
	}
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		octx, cancel := context.WithTimeout(ctx, 10*time.Second)
		kv, err := sessionkv.OpenJetStream(octx, js, cfg.KV(), true)
		cancel()
		if err == nil {
			return kv, nil
		}
		log.Warn("opening the kv bucket failed; retrying", "bucket", cfg.KV().Bucket, "error", err, "retry_in", wait.String())
		if !pause.For(ctx, wait) {
			return nil, fmt.Errorf("opening the kv bucket %s: %w", cfg.KV().Bucket, err)
		}
	}
}
