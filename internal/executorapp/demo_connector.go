package executorapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/flowscript/flowscript/internal/capabilities"
	"github.com/flowscript/flowscript/internal/capabilities/httpapi"
	"github.com/flowscript/flowscript/internal/capabilities/sessionkv"
)

// The demo's connector: with no CAPABILITIES_POLICY_FILE, the demo grants
// tenant "demo" the api capability and one connector, "demo-crm", to a tiny
// customer service it serves on a loopback port, with a credential from
// its own memory (never the script's). examples/11-api-connector.json calls
// it and writes a console line.
const (
	demoTenant    = "demo"
	demoConnector = "demo-crm"
	demoToken     = "demo-token"
)

// demoCRM is the demo's customer service.
type demoCRM struct {
	srv *http.Server
	url string
}

// startDemoCRM serves GET /v1/customers/{id} on a loopback port; it
// answers only the demo's credential.
func startDemoCRM(ctx context.Context, log *slog.Logger) (*demoCRM, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the demo's customer service: %w", err)
	}
	customers := map[string]string{"42": "Maria da Silva", "7": "João Souza"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/customers/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+demoToken {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		name, ok := customers[r.PathValue("id")]
		if !ok {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"id": r.PathValue("id"), "name": name}) // the caller may be gone
	})
	d := &demoCRM{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, url: "http://" + ln.Addr().String()}
	go func() {
		if err := d.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("the demo's customer service stopped", "error", err)
		}
	}()
	return d, nil
}

func (d *demoCRM) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = d.srv.Shutdown(ctx) // a demo service: nothing to flush
}

// demoCapabilities grants the demo tenant the api capability on the demo
// connector.
func demoCapabilities(crm *demoCRM) (*capabilities.Capabilities, error) {
	policy := &capabilities.Policy{
		Tenants: map[string]capabilities.Tenant{demoTenant: {Capabilities: []string{"api"}}},
		Connectors: map[string]httpapi.Connector{demoConnector: {
			BaseURL:      crm.url + "/v1/",
			Methods:      []string{"GET"},
			PathPrefixes: []string{"/customers"},
			Headers:      map[string]httpapi.Secret{"Authorization": {Env: "DEMO_CRM_TOKEN", Prefix: "Bearer "}},
			Tenants:      []string{demoTenant},
		}},
	}
	api, err := httpapi.New(policy.Connectors, func(name string) string {
		if strings.EqualFold(name, "DEMO_CRM_TOKEN") {
			return demoToken
		}
		return ""
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("the demo's connector: %w", err)
	}
	return capabilities.New(policy, api, sessionkv.NewMemory(sessionkv.Config{})), nil
}
