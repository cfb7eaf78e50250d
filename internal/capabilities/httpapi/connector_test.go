package httpapi

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// New reports every problem at once, each naming the connector and the
// field, and never a secret's value.
func TestNewValidatesEveryConnector(t *testing.T) {
	badSecret := crm("https://crm.example.com/")
	badSecret.Headers = map[string]Secret{
		"Authorization": {Env: "NEWLINE_TOKEN"},
		"X-Both":        {Env: "CRM_TOKEN", File: "/x"},
		"X-None":        {},
		"X-Unset":       {Env: "UNSET"},
		"X-File":        {File: "/missing"},
		"Host":          {Env: "CRM_TOKEN"},
		"Bad Name":      {Env: "CRM_TOKEN"},
	}
	connectors := map[string]Connector{
		"ok":      crm("https://crm.example.com/api/"),
		"secrets": badSecret,
		"empty":   {},
		"base": {BaseURL: "ftp://user@h/x?y#z", Methods: []string{"GET", "TRACE"}, PathPrefixes: []string{"customers", "/a/../b", "/q?x"},
			Tenants: []string{"*"}, Timeout: -time.Second, MaxResponseBytes: MaxResponseBytesLimit + 1},
		"bad name!": crm("https://crm.example.com/"),
	}
	_, err := New(connectors, func(name string) string {
		if name == "NEWLINE_TOKEN" {
			return "leaked-value\nX-Evil: 1"
		}
		return testEnv(name)
	}, func(string) ([]byte, error) { return nil, errors.New("open /missing: no such file") })
	if err == nil {
		t.Fatal("New accepted bad connectors")
	}
	msg := err.Error()
	for _, want := range []string{
		`connector "bad name!": name: use 1 to 64 letters`,
		`connector "base": baseURL: the scheme must be http or https`,
		`connector "base": methods: "TRACE" is not supported`,
		`connector "base": pathPrefixes: "customers": must start with /`,
		`connector "base": pathPrefixes: "/a/../b": '.' and '..' segments are not allowed`,
		`connector "base": pathPrefixes: "/q?x": give a plain path`,
		`connector "base": timeout: -1s is negative`,
		`connector "base": maxResponseBytes: 33554433 is outside 1..33554432`,
		`connector "empty": baseURL: empty`,
		`connector "empty": methods: empty`,
		`connector "empty": pathPrefixes: empty`,
		`connector "empty": tenants: empty`,
		`connector "secrets": headers["Authorization"]: the value (or prefix) holds a line break`,
		`connector "secrets": headers["X-Both"]: set exactly one of env and file`,
		`connector "secrets": headers["X-None"]: set exactly one of env and file`,
		`connector "secrets": headers["X-Unset"]: environment variable UNSET is unset or empty`,
		`connector "secrets": headers["X-File"]: reading file /missing failed`,
		`connector "secrets": headers["Host"]: the host manages this header`,
		`connector "secrets": headers["Bad Name"]: not a valid header name`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q", want)
		}
	}
	if strings.Contains(msg, `"ok"`) || strings.Contains(msg, "leaked-value") || strings.Contains(msg, testToken) {
		t.Errorf("the error names a good connector or a secret:\n%s", msg)
	}
}

func TestBaseURLs(t *testing.T) {
	for base, want := range map[string]string{
		"https://user:pw@crm.example.com/": "user information",
		"https://crm.example.com/?a=1":     "a query is not allowed",
		"https://crm.example.com/#x":       "a fragment",
		"https:///x":                       "no host",
		"crm.example.com/api":              "the scheme must be http or https",
		"https://crm.example.com:99999/":   "the port must be 1 to 65535",
		"https://crm.example.com:x/":       "not a URL",
		"https://crm.example.com/a/../b":   "the path '.' and '..' segments",
		"https://crm.example.com/a//b":     "the path empty segments",
	} {
		_, err := New(map[string]Connector{"crm": crm(base)}, testEnv, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", base, err, want)
		}
	}
	c, err := New(map[string]Connector{"a": crm("HTTPS://CRM.Example.com/api/v1/"), "b": crm("http://[::1]:8080"), "c": crm("http://10.0.0.1/")}, testEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for name, want := range map[string]string{"a": "https crm.example.com:443 /api/v1 false", "b": "http [::1]:8080  true", "c": "http 10.0.0.1:80  true"} {
		conn := c.connectors[name]
		if got := strings.Join([]string{conn.scheme, conn.hostPort, conn.basePath, map[bool]string{true: "true", false: "false"}[conn.allowPrivate]}, " "); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	if d := c.connectors["a"]; d.timeout != DefaultTimeout || d.maxBytes != DefaultMaxResponseBytes || strings.Join(d.prefixes, ",") != "/customers,/orders" {
		t.Errorf("defaults: %+v", d)
	}
}

// The operator's policy file decodes into Connector (YAML, durations as text).
func TestConnectorFromYAML(t *testing.T) {
	var got map[string]Connector
	err := yaml.Unmarshal([]byte(`
crm:
  baseURL: https://crm.example.com/api/v1/
  methods: [GET, POST]
  pathPrefixes: [/customers]
  headers:
    Authorization: {env: CRM_TOKEN, prefix: "Bearer "}
    X-Api-Key: {file: /run/secrets/crm-key}
  timeout: 2s
  maxResponseBytes: 65536
  tenants: [acme, globex]
`), &got)
	if err != nil {
		t.Fatal(err)
	}
	crm := got["crm"]
	if crm.Timeout != 2*time.Second || crm.MaxResponseBytes != 65536 || crm.Headers["Authorization"].Prefix != "Bearer " ||
		crm.Headers["X-Api-Key"].File != "/run/secrets/crm-key" || len(crm.Tenants) != 2 {
		t.Fatalf("decoded %+v", crm)
	}
}
