package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/flowscript/flowscript/internal/capabilities/httpapi"
)

func ExampleClient_Do() {
	crm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":42,"auth":"`+r.Header.Get("Authorization")+`"}`)
	}))
	defer crm.Close()

	c, err := httpapi.New(map[string]httpapi.Connector{
		"crm": {
			BaseURL:      crm.URL + "/api/v1/",
			Methods:      []string{"GET"},
			PathPrefixes: []string{"/customers"},
			Headers:      map[string]httpapi.Secret{"Authorization": {Env: "CRM_TOKEN", Prefix: "Bearer "}},
			Tenants:      []string{"acme"},
		},
	}, func(string) string { return "t0p-s3cret" }, nil)
	if err != nil {
		panic(err)
	}
	defer c.Close()

	resp, err := c.Do(context.Background(), "acme", httpapi.Request{Connector: "crm", Method: "GET", Path: "/customers/42"})
	fmt.Println(resp.Status, string(resp.JSON), err)
	_, err = c.Do(context.Background(), "acme", httpapi.Request{Connector: "crm", Method: "GET", Path: "/customers/../admin"})
	fmt.Println(err)
	_, err = c.Do(context.Background(), "acme", httpapi.Request{Connector: "crm", Method: "DELETE", Path: "/customers/42"})
	fmt.Println(err)
	// Output:
	// 200 {"id":42,"auth":"Bearer [REDACTED]"} <nil>
	// path "/customers/../admin": '.' and '..' segments are not allowed
	// connector "crm" does not allow DELETE; it allows GET
}
