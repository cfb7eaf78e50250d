package executorapp

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestExecutorLinksNoDatabaseDriver: the executor binary links no
// PostgreSQL driver (the templates store's tracer lives with the store).
func TestExecutorLinksNoDatabaseDriver(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "list", "-deps", "./cmd/executor")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "jackc/pgx") || strings.Contains(pkg, "internal/templates") {
			t.Errorf("cmd/executor links %s", pkg)
		}
	}
}
