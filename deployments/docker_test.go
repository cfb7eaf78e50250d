package deployments

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const dockerfilePath = "docker/Dockerfile"

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	line int
	cmd  string // upper case: FROM, RUN, COPY ...
	args string
}

func dockerfile(t *testing.T) []instruction {
	t.Helper()
	var out []instruction
	var cur strings.Builder
	start := 0
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, dockerfilePath)))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = n
		}
		if body, ok := strings.CutSuffix(trimmed, `\`); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{line: start, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
		cur.Reset()
	}
	if cur.Len() > 0 {
		t.Fatalf("%s: the file ends inside a continued line", dockerfilePath)
	}
	return out
}

// stage is one FROM ... AS name block.
type stage struct {
	name, from string
	instrs     []instruction
}

func dockerStages(t *testing.T) []stage {
	t.Helper()
	var stages []stage
	for _, in := range dockerfile(t) {
		if in.cmd == "FROM" {
			words := strings.Fields(in.args)
			words = slices.DeleteFunc(words, func(w string) bool { return strings.HasPrefix(w, "--platform=") })
			s := stage{from: words[0]}
			if len(words) == 3 && strings.EqualFold(words[1], "AS") {
				s.name = words[2]
			}
			stages = append(stages, s)
			continue
		}
		if len(stages) > 0 {
			stages[len(stages)-1].instrs = append(stages[len(stages)-1].instrs, in)
		}
	}
	return stages
}

func dockerfileStages(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, s := range dockerStages(t) {
		names = append(names, s.name)
	}
	return names
}

// shellWords splits s like a POSIX shell for the simple cases build lines
// use: blanks, double and single quotes.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote in %q", quote, s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func TestShellWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`-trimpath -ldflags "-s -w"`, []string{"-trimpath", "-ldflags", "-s -w"}},
		{`a  'b c'd`, []string{"a", "b cd"}},
		{``, nil},
	} {
		got, err := shellWords(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := shellWords(`"open`); err == nil {
		t.Error(`shellWords("\"open") accepted an unclosed quote`)
	}
}

// goBuild is the go build command of the Dockerfile's build stage.
type goBuild struct {
	env      []string // VAR=value words before "go build"
	flags    []string // between "build" and "-o"
	out      string
	packages []string
}

func dockerGoBuild(t *testing.T) goBuild {
	t.Helper()
	var found []goBuild
	for _, in := range dockerfile(t) {
		if in.cmd != "RUN" || !strings.Contains(in.args, "go build") {
			continue
		}
		words, err := shellWords(in.args)
		if err != nil {
			t.Fatalf("%s:%d: %v", dockerfilePath, in.line, err)
		}
		i := slices.Index(words, "go")
		if i < 0 || i+1 >= len(words) || words[i+1] != "build" {
			t.Fatalf("%s:%d: cannot find the words `go build` in %q", dockerfilePath, in.line, in.args)
		}
		var b goBuild
		for _, w := range words[:i] {
			if !strings.HasPrefix(w, "--") && strings.Contains(w, "=") {
				b.env = append(b.env, w)
			}
		}
		rest := words[i+2:]
		o := slices.Index(rest, "-o")
		if o < 0 || o+1 >= len(rest) {
			t.Fatalf("%s:%d: go build has no -o output folder", dockerfilePath, in.line)
		}
		b.flags, b.out, b.packages = rest[:o], rest[o+1], rest[o+2:]
		found = append(found, b)
	}
	if len(found) != 1 {
		t.Fatalf("%s: want exactly one RUN with go build, found %d", dockerfilePath, len(found))
	}
	return found[0]
}

var makeVar = regexp.MustCompile(`(?m)^(?:export\s+)?([A-Z_]+)\s*\??=\s*(.*)$`)

// makefileVars reads the simple VAR ?= value lines of the Makefile.
func makefileVars(t *testing.T) map[string]string {
	t.Helper()
	vars := map[string]string{}
	for _, m := range makeVar.FindAllStringSubmatch(string(readFile(t, filepath.Join(repoRoot(t), "Makefile"))), -1) {
		vars[m[1]] = strings.TrimSpace(m[2])
	}
	return vars
}

func buildFlags(t *testing.T) []string {
	t.Helper()
	raw, ok := makefileVars(t)["BUILD_FLAGS"]
	if !ok {
		t.Fatal("the Makefile defines no BUILD_FLAGS")
	}
	flags, err := shellWords(raw)
	if err != nil {
		t.Fatalf("Makefile BUILD_FLAGS: %v", err)
	}
	return flags
}

// mainPackages are the folders under cmd/ that hold a Go program.
func mainPackages(t *testing.T) []string {
	t.Helper()
	dirs, err := os.ReadDir(filepath.Join(repoRoot(t), "cmd"))
	if err != nil {
		t.Fatalf("listing cmd/: %v", err)
	}
	var names []string
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		goFiles, _ := filepath.Glob(filepath.Join(repoRoot(t), "cmd", d.Name(), "*.go"))
		goFiles = slices.DeleteFunc(goFiles, func(f string) bool { return strings.HasSuffix(f, "_test.go") })
		if len(goFiles) > 0 {
			names = append(names, d.Name())
		}
	}
	return names
}

// The container build and `make build` build the same way.
func TestDockerfileBuildsLikeTheMakefile(t *testing.T) {
	b := dockerGoBuild(t)
	if want := buildFlags(t); !slices.Equal(b.flags, want) {
		t.Errorf("Dockerfile go build flags %q, Makefile BUILD_FLAGS %q: keep them equal", b.flags, want)
	}
	if cgo := makefileVars(t)["CGO_ENABLED"]; cgo != "0" {
		t.Errorf("Makefile CGO_ENABLED is %q, want 0 (static binaries)", cgo)
	}
	if !slices.Contains(b.env, "CGO_ENABLED=0") {
		t.Errorf("Dockerfile go build runs with %q, without CGO_ENABLED=0", b.env)
	}
	if !slices.Equal(b.packages, []string{"./cmd/..."}) {
		t.Errorf("Dockerfile builds %q, want ./cmd/... like the Makefile", b.packages)
	}
}

// Each program under cmd/ has a runtime stage that copies it from the
// build's output, runs it as its entry point, as uid 65532, on a base
// image without a shell, and exposes the service's default port.
func TestDockerfileRuntimeStages(t *testing.T) {
	out := strings.TrimSuffix(dockerGoBuild(t).out, "/")
	stages := dockerStages(t)
	users := map[string]string{} // stage → user, inherited from its base stage
	for _, s := range stages {
		users[s.name] = users[s.from]
		for _, in := range s.instrs {
			if in.cmd == "USER" {
				users[s.name] = in.args
			}
		}
	}
	for _, bin := range mainPackages(t) {
		i := slices.IndexFunc(stages, func(s stage) bool { return s.name == bin })
		if i < 0 {
			t.Errorf("cmd/%s has no Dockerfile stage named %s", bin, bin)
			continue
		}
		s := stages[i]
		var copied, entry string
		for _, in := range s.instrs {
			switch in.cmd {
			case "COPY":
				words := strings.Fields(in.args)
				if len(words) == 3 && words[1] == out+"/"+bin {
					copied = words[2]
				}
			case "ENTRYPOINT":
				entry = in.args
			}
		}
		if copied == "" {
			t.Errorf("stage %s does not COPY %s/%s from the build stage", bin, out, bin)
		}
		if want := `["` + copied + `"]`; entry != want {
			t.Errorf("stage %s: ENTRYPOINT %s, want %s (the executor re-executes its own path)", bin, entry, want)
		}
		if users[bin] != "65532:65532" {
			t.Errorf("stage %s runs as %q, want 65532:65532", bin, users[bin])
		}
		base := s
		for base.from != "" && slices.ContainsFunc(stages, func(x stage) bool { return x.name == base.from }) {
			base = stages[slices.IndexFunc(stages, func(x stage) bool { return x.name == base.from })]
		}
		if base.from != "scratch" && !strings.HasPrefix(base.from, "gcr.io/distroless/static") {
			t.Errorf("stage %s is based on %s, want distroless/static or scratch", bin, base.from)
		}
		for _, svc := range services {
			if svc.target != bin {
				continue
			}
			eff, err := svc.load(map[string]string{"AUTH_API_KEYS": "placeholder-key-for-tests"})
			if err != nil {
				t.Fatalf("%s defaults: %v", svc.name, err)
			}
			want := strconv.Itoa(addrPort(t, svc.name, eff.defaultAddr))
			exposed := false
			for _, in := range s.instrs {
				exposed = exposed || (in.cmd == "EXPOSE" && slices.Contains(strings.Fields(in.args), want))
			}
			if !exposed {
				t.Errorf("stage %s does not EXPOSE %s, the %s's default port", bin, want, svc.name)
			}
		}
	}
	if len(mainPackages(t)) < 2 {
		t.Errorf("found %v under cmd/, want the executor and the templates API at least", mainPackages(t))
	}
}

// buildLikeDockerfile runs the Dockerfile's go build, flags and all, into
// a temporary folder and returns it. No Docker engine runs here; this is
// the same go build.
func buildLikeDockerfile(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		if testing.Short() {
			t.Skip("no go command on PATH (-short)")
		}
		t.Fatalf("the go command is needed to check the container build: %v", err)
	}
	b := dockerGoBuild(t)
	dir := t.TempDir()
	args := append([]string{"build"}, b.flags...)
	args = append(args, "-o", dir+string(filepath.Separator))
	args = append(args, b.packages...)
	cmd := exec.Command(goBin, args...)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return dir
}

// Every binary of the container build is static (no interpreter, no
// dynamic section) and stripped.
func TestDockerfileBuildIsStatic(t *testing.T) {
	dir := buildLikeDockerfile(t)
	want := mainPackages(t)
	var got []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got = append(got, e.Name())
		if err := checkStatic(filepath.Join(dir, e.Name())); err != nil {
			t.Errorf("%s: %v", e.Name(), err)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the build produced %v, want one binary per cmd/ program %v", got, want)
	}
}

// checkStatic reports why path is not a static, stripped ELF executable.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("not an ELF executable: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only file: nothing to flush
	var errs []error
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_INTERP:
			errs = append(errs, errors.New("has a program interpreter (dynamically linked)"))
		case elf.PT_DYNAMIC:
			errs = append(errs, errors.New("has a dynamic segment"))
		}
	}
	if f.Section(".dynamic") != nil {
		errs = append(errs, errors.New("has a .dynamic section"))
	}
	if f.Section(".symtab") != nil {
		errs = append(errs, errors.New("has a symbol table: -ldflags -s did not apply"))
	}
	return errors.Join(errs...)
}

// dockerignore patterns, Docker's syntax: * and ? within a path element,
// ** across elements, a match on a folder excludes what is under it.
func dockerignore(t *testing.T) []*regexp.Regexp {
	t.Helper()
	var res []*regexp.Regexp
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, dockerfilePath+".dockerignore")))
	for sc.Scan() {
		p := strings.TrimSpace(sc.Text())
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		if strings.HasPrefix(p, "!") {
			t.Fatalf("Dockerfile.dockerignore: exceptions (%s) are not supported by this test; list exclusions only", p)
		}
		p = strings.Trim(filepath.ToSlash(filepath.Clean(p)), "/")
		var re strings.Builder
		re.WriteString("^")
		for i := 0; i < len(p); i++ {
			switch {
			case strings.HasPrefix(p[i:], "**/"):
				re.WriteString("(?:.*/)?")
				i += 2
			case strings.HasPrefix(p[i:], "**"):
				re.WriteString(".*")
				i++
			case p[i] == '*':
				re.WriteString("[^/]*")
			case p[i] == '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(p[i : i+1]))
			}
		}
		re.WriteString("(?:/.*)?$")
		res = append(res, regexp.MustCompile(re.String()))
	}
	return res
}

func ignored(patterns []*regexp.Regexp, path string) bool {
	return slices.ContainsFunc(patterns, func(re *regexp.Regexp) bool { return re.MatchString(path) })
}

func TestDockerignoreMatcher(t *testing.T) {
	pats := dockerignore(t)
	for _, tc := range []struct {
		path string
		want bool
	}{
		{".git/config", true},
		{"sandbox.test", true},
		{"internal/sandbox/sandbox.test", true},
		{"flowjob/testdata/job.golden.json", true},
		{"deployments/docker/Dockerfile", true},
		{"go.mod", false},
		{"internal/sandbox/runtime.go", false},
	} {
		if got := ignored(pats, tc.path); got != tc.want {
			t.Errorf("ignored(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

// The build context keeps every file the programs are built from: go.mod,
// go.sum, the Go files of every package cmd/... depends on in this module,
// and their embedded files.
func TestDockerignoreKeepsTheBuildInputs(t *testing.T) {
	root := repoRoot(t)
	cmd := exec.Command("go", "list", "-deps", "-f",
		`{{if .Module}}{{if .Module.Main}}{{.Dir}}|{{join .GoFiles ","}}|{{join .EmbedFiles ","}}{{end}}{{end}}`, "./cmd/...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/...: %v", err)
	}
	need := []string{"go.mod", "go.sum"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) != 3 {
			continue
		}
		rel, err := filepath.Rel(root, parts[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range append(strings.Split(parts[1], ","), strings.Split(parts[2], ",")...) {
			if f != "" {
				need = append(need, filepath.ToSlash(filepath.Join(rel, f)))
			}
		}
	}
	if len(need) < 10 {
		t.Fatalf("go list found only %v: the check would prove nothing", need)
	}
	pats := dockerignore(t)
	for _, f := range need {
		if ignored(pats, f) {
			t.Errorf("Dockerfile.dockerignore excludes %s, which the build needs", f)
		}
	}
}

// checkStatic must refuse what the build must not produce: a dynamically
// linked executable (the system shell) and an unstripped one (a program
// built here without -s).
func TestCheckStaticRefusesDynamicAndUnstrippedBinaries(t *testing.T) {
	if err := checkStatic("/bin/sh"); err == nil || !strings.Contains(err.Error(), "interpreter") {
		t.Errorf("checkStatic(/bin/sh) = %v, want a dynamic linking error", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", "unstripped", "main.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building a test program: %v\n%s", err, out)
	}
	err := checkStatic(filepath.Join(dir, "unstripped"))
	if err == nil || err.Error() != "has a symbol table: -ldflags -s did not apply" {
		t.Errorf("checkStatic(unstripped static program) = %v, want only the symbol table error", err)
	}
}
