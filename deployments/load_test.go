package deployments

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// repoRoot is the module root: this package's parent folder.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatalf("finding the repository root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("the repository root %s has no go.mod: %v", dir, err)
	}
	return dir
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return b
}

// decodeYAML decodes the single YAML document in path into v.
func decodeYAML(t *testing.T, path string, v any) {
	t.Helper()
	docs := yamlDocs(t, path)
	if len(docs) != 1 {
		t.Fatalf("%s: want exactly one YAML document, got %d", path, len(docs))
	}
	if err := docs[0].Decode(v); err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
}

// yamlDocs parses every document in path; a file that is not valid YAML
// fails the test.
func yamlDocs(t *testing.T, path string) []*yaml.Node {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(readFile(t, path)))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("parsing %s: %v", path, err)
		}
		docs = append(docs, &n)
	}
}

// readEnvFile reads a kustomize env file (KEY=VALUE lines, # comments).
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, path)))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" {
			t.Fatalf("%s:%d: want KEY=VALUE, got %q", path, n, line)
		}
		if _, dup := env[k]; dup {
			t.Fatalf("%s:%d: %s is set twice", path, n, k)
		}
		env[k] = v
	}
	return env
}

// getenvFrom turns a map into a getenv function.
func getenvFrom(env map[string]string) func(string) string {
	return func(name string) string { return env[name] }
}

// addrPort is the port of a host:port or :port listen address.
func addrPort(t *testing.T, what, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("%s: %q is not host:port: %v", what, addr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("%s: port %q of %q is not a number", what, p, addr)
	}
	return n
}

// intOrString is a Kubernetes IntOrString (ports, targetPorts).
type intOrString struct {
	Int int
	Str string
}

func (v *intOrString) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a number or a name", n.Line)
	}
	if i, err := strconv.Atoi(n.Value); err == nil && n.Tag != "!!str" {
		v.Int = i
		return nil
	}
	v.Str = n.Value
	return nil
}

func (v intOrString) String() string {
	if v.Str != "" {
		return v.Str
	}
	return strconv.Itoa(v.Int)
}

// quantityBytes parses a Kubernetes memory quantity (512Mi, 1Gi, 1G,
// 1048576).
func quantityBytes(q string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{
		{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40},
		{"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12},
	}
	for _, u := range units {
		if num, ok := strings.CutSuffix(q, u.suffix); ok {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("memory quantity %q: %w", q, err)
			}
			return n * u.mult, nil
		}
	}
	n, err := strconv.ParseInt(q, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("memory quantity %q is not a whole number of bytes or a number with Ki/Mi/Gi/Ti/k/M/G/T", q)
	}
	return n, nil
}

func TestQuantityBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "512Mi", want: 512 << 20},
		{in: "1Gi", want: 1 << 30},
		{in: "1G", want: 1e9},
		{in: "1048576", want: 1 << 20},
		{in: "1.5Gi", bad: true},
		{in: "lots", bad: true},
	} {
		got, err := quantityBytes(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("quantityBytes(%q) = %d, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("quantityBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}
