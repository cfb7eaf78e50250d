package deployments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's configuration tables name every variable the services read:
// a variable added to or renamed in a Config must be documented too.
func TestREADMEDocumentsEveryVariable(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	for _, s := range services {
		for _, name := range s.configVars {
			if !strings.Contains(text, "`"+name+"`") {
				t.Errorf("README.md does not document %s's variable %s: add it to the configuration tables", s.name, name)
			}
		}
	}
}
