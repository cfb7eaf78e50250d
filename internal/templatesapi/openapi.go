package templatesapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
)

//go:embed openapi.json
var openAPISource []byte

// openAPIDocument returns the embedded document with its servers set to the
// configured base path.
func openAPIDocument(basePath string) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(openAPISource, &doc); err != nil {
		return nil, fmt.Errorf("decoding the embedded OpenAPI document: %w", err)
	}
	doc["servers"] = []any{map[string]any{"url": basePath}}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the OpenAPI document: %w", err)
	}
	return out, nil
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, no-cache") // a read, as every other (doc.go)
	w.WriteHeader(http.StatusOK)
	w.Write(s.openapi) //nolint:errcheck // the client is gone; nothing to do
}
