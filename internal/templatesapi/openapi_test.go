package templatesapi

import (
	"encoding/json"
	"github.com/flowscript/flowscript/flowjob"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// The document served lists exactly the registered routes: same paths,
// same methods, nothing more, nothing less.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	for _, base := range []string{"/api", "/", "/flow/v2"} {
		t.Run(base, func(t *testing.T) {
			cfg := testConfig()
			cfg.BasePath = base
			cfg = cfg.WithDefaults()
			a := startAPI(t, cfg, openEmbedded(t, cfg), nil)
			r := a.authed("GET", cfg.prefix()+"/openapi.json", nil)
			wantStatus(t, r, http.StatusOK)
			if cc := r.header.Get("Cache-Control"); cc != "private, no-cache" { // a read, behind a key
				t.Errorf("Cache-Control %q, want private, no-cache", cc)
			}
			var doc struct {
				OpenAPI string `json:"openapi"`
				Servers []struct {
					URL string `json:"url"`
				} `json:"servers"`
				Security []map[string][]string     `json:"security"`
				Paths    map[string]map[string]any `json:"paths"`
			}
			r.json(t, &doc)
			if doc.OpenAPI != "3.1.0" || len(doc.Servers) != 1 || doc.Servers[0].URL != base || len(doc.Security) != 2 {
				t.Fatalf("document head: openapi %q servers %+v security %v", doc.OpenAPI, doc.Servers, doc.Security)
			}

			var documented []string
			for path, item := range doc.Paths {
				server := doc.Servers[0].URL
				if s, ok := item["servers"].([]any); ok && len(s) == 1 {
					server = s[0].(map[string]any)["url"].(string)
				}
				for method, op := range item {
					if method == "servers" || method == "parameters" {
						continue
					}
					documented = append(documented, strings.ToUpper(method)+" "+strings.TrimRight(server, "/")+path)
					checkOperation(t, method, path, op.(map[string]any))
				}
			}
			var registered []string
			for _, rt := range a.srv.routes() {
				registered = append(registered, rt.method+" "+rt.path)
			}
			slices.Sort(documented)
			slices.Sort(registered)
			if !slices.Equal(documented, registered) {
				t.Errorf("OpenAPI paths and routes differ\ndocumented %v\nregistered %v", documented, registered)
			}
		})
	}
}

// checkOperation: protected operations document their 401, public ones
// opt out of security explicitly.
func checkOperation(t *testing.T, method, path string, op map[string]any) {
	t.Helper()
	responses, _ := op["responses"].(map[string]any)
	if op["operationId"] == nil || len(responses) == 0 {
		t.Errorf("%s %s: no operationId or responses", method, path)
	}
	security, hasSecurity := op["security"].([]any)
	public := hasSecurity && len(security) == 0
	if _, has401 := responses["401"]; has401 == public {
		t.Errorf("%s %s: public=%v but 401 documented=%v", method, path, public, has401)
	}
}

// TestOpenAPIListsEveryErrorCode: the Error schema's code enum holds every
// code the service answers with, and the saves document their 429.
func TestOpenAPIListsEveryErrorCode(t *testing.T) {
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas struct {
				Error struct {
					Properties struct {
						Error struct {
							Properties struct {
								Code struct {
									Enum []string `json:"enum"`
								} `json:"code"`
							} `json:"properties"`
						} `json:"error"`
					} `json:"properties"`
				} `json:"Error"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPISource, &doc); err != nil {
		t.Fatal(err)
	}
	var components struct {
		Components struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPISource, &components); err != nil {
		t.Fatal(err)
	}
	responses := components.Components.Responses
	enum := doc.Components.Schemas.Error.Properties.Error.Properties.Code.Enum
	for _, code := range []string{
		CodeUnauthenticated, CodeForbidden, CodeNotFound, CodeMethodNotAllowed, CodeInvalidID, CodeInvalidJSON,
		CodeDuplicateField, CodeFieldCase, CodeInvalidUTF8, CodeUnknownField, CodeBodyTooLarge, CodeRequestTimeout, CodeHeadersTooLarge, CodeURITooLong,
		CodeUnsupportedMediaType, CodeValidationFailed, CodePreconditionFailed, CodeSandboxBusy,
		CodeStoreUnavailable, CodeInternal, CodeInvalidParameter, CodeUnknownParameter, CodeInvalidCursor,
		CodeFailuresUnavailable, CodeServiceBusy,
	} {
		if !slices.Contains(enum, code) {
			t.Errorf("the Error schema's code enum lacks %s", code)
		}
	}
	for path, method := range map[string]string{"/script-templates": "post", "/script-templates/{id}": "put"} {
		var op struct{ Responses map[string]any }
		if err := json.Unmarshal(doc.Paths[path][method], &op); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		if _, ok := op.Responses["429"]; !ok {
			t.Errorf("%s %s documents no 429: a save whose check finds no free worker answers SANDBOX_BUSY", method, path)
		}
	}
	// Every route that reads a body may find the body budget spent.
	for path, method := range map[string]string{
		"/script-templates": "post", "/script-templates/{id}": "put", "/scripts/test": "post", "/failures/{jobId}/replay": "post",
	} {
		var op struct{ Responses map[string]json.RawMessage }
		if err := json.Unmarshal(doc.Paths[path][method], &op); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		answer := string(op.Responses["503"])
		if ref, ok := strings.CutPrefix(answer, `{"$ref": "#/components/responses/`); ok {
			answer = string(responses[strings.TrimSuffix(ref, `"}`)])
		}
		if !strings.Contains(answer, CodeServiceBusy) {
			t.Errorf("%s %s: its 503 does not document %s (the body budget spent): %s", method, path, CodeServiceBusy, answer)
		}
	}
}

// TestOpenAPITestInputsCap: the document's cap on a test run's inputs is
// the service's, which is a job's.
func TestOpenAPITestInputsCap(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				TestRequest struct {
					Properties struct {
						InputVariables struct {
							MaxItems int `json:"maxItems"`
						} `json:"inputVariables"`
					} `json:"properties"`
				} `json:"TestRequest"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPISource, &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Components.Schemas.TestRequest.Properties.InputVariables.MaxItems; got != MaxTestInputs || MaxTestInputs != flowjob.MaxInputVariables {
		t.Errorf("TestRequest.inputVariables.maxItems = %d, MaxTestInputs = %d, a job's cap %d: want all equal", got, MaxTestInputs, flowjob.MaxInputVariables)
	}
}
