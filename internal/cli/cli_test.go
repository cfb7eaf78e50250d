package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/flowscript/flowscript/examples"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
)

func TestMain(m *testing.M) {
	workerpool.MaybeRunWorker() // run starts workers by re-executing this test binary
	goleak.VerifyTestMain(m)
}

// invocation is one run of Main with buffers.
type invocation struct {
	args  []string
	stdin string
	env   map[string]string
	ctx   context.Context // nil: context.Background()
}

func (inv invocation) run(t *testing.T) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx := inv.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	code = Main(ctx, Env{
		Args:   inv.args,
		Stdin:  strings.NewReader(inv.stdin),
		Stdout: &out,
		Stderr: &errOut,
		Getenv: func(k string) string { return inv.env[k] },
	})
	return code, out.String(), errOut.String()
}

// cpfScript is the seed's cpf script.
var cpfScript = examples.CPF

func writeScript(t *testing.T, source string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.js")
	if err := os.WriteFile(path, []byte(source), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUsage(t *testing.T) {
	script := writeScript(t, "return 1")
	for _, tc := range []struct {
		name       string
		inv        invocation
		code       int
		stdout     string // substring
		stderr     string // substring
		stdoutNone bool
	}{
		{"no command", invocation{}, ExitUsage, "", "Commands:\n  bench", true},
		{"help", invocation{args: []string{"help"}}, ExitOK, "flowscript help <command>", "", false},
		{"--help", invocation{args: []string{"--help"}}, ExitOK, "Commands:", "", false},
		{"help run", invocation{args: []string{"help", "run"}}, ExitOK, "Examples:\n  flowscript run --input cpf=", "", false},
		{"run -h", invocation{args: []string{"run", "-h"}}, ExitOK, "flowscript run --jobs FILE|-", "", false},
		{"help of an unknown command", invocation{args: []string{"help", "nope"}}, ExitUsage, "", `unknown command "nope"`, true},
		{"help help", invocation{args: []string{"help", "help"}}, ExitOK, "Commands:\n  bench", "", false},
		{"help --help", invocation{args: []string{"help", "--help"}}, ExitOK, "Commands:\n  bench", "", false},
		{"unknown command", invocation{args: []string{"nope"}}, ExitUsage, "", `flowscript: unknown command "nope"`, true},
		{"run without a file", invocation{args: []string{"run"}}, ExitUsage, "", "missing the script", true},
		{"run with two files", invocation{args: []string{"run", "a.js", "b.js"}}, ExitUsage, "", "one script at a time, got 2: a.js b.js", true},
		{"input without =", invocation{args: []string{"run", "--input", "cpf", script}}, ExitUsage, "", `want name=value, got "cpf"`, true},
		{"unknown flag", invocation{args: []string{"run", "--fast", script}}, ExitUsage, "", "flag provided but not defined: --fast", true},
		{"a number that is not one", invocation{args: []string{"bench", "--jobs", "many"}}, ExitUsage, "", `invalid value "many" for flag --jobs: write a whole number`, true},
		{"jobs with inputs", invocation{args: []string{"run", "--jobs", "--input", "a=1", script}}, ExitUsage, "", "--jobs takes no --input or --json", true},
		{"missing file", invocation{args: []string{"run", "/nonexistent/x.js"}}, ExitUsage, "", "opening the script: open /nonexistent/x.js", true},
		{"a directory", invocation{args: []string{"run", os.TempDir()}}, ExitUsage, "", "is a directory: give a file", true},
		{"missing jobs file", invocation{args: []string{"run", "--jobs", "/nonexistent/jobs.jsonl"}}, ExitUsage, "",
			"opening the jobs file: open /nonexistent/jobs.jsonl", true},
		{"jobs file a directory", invocation{args: []string{"run", "--jobs", os.TempDir()}}, ExitUsage, "", "the jobs file " + os.TempDir() + " is a directory", true},
		{"jobs without a file", invocation{args: []string{"run", "--jobs"}}, ExitUsage, "", "missing the jobs file", true},
		{"input given twice", invocation{args: []string{"run", "--input", "a=1", "--input", "a=2", script}}, ExitUsage, "",
			`invalid value "a=2" for flag --input: "a" is already given by an earlier --input`, true},
		{"bad limit", invocation{args: []string{"run", script}, env: map[string]string{"SANDBOX_TIMEOUT_MS": "soon"}}, ExitUsage, "",
			`SANDBOX_TIMEOUT_MS must be a whole number, got "soon"`, true},
		{"two bad limits", invocation{args: []string{"run", script}, env: map[string]string{"SANDBOX_TIMEOUT_MS": "-1", "SANDBOX_MEMORY_MB": "-1"}}, ExitUsage, "",
			"SANDBOX_MEMORY_MB must be between 1 and 4096", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := tc.inv.run(t)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) || (tc.stdoutNone && stdout != "") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// Every rule the job validator applies to the names of inputVariables is a
// usage error of run's --input (exit 2, naming the flag), not a failure of
// the script (exit 1). Each case is checked against flowjob too, so the
// list stays one of the validator's rules.
func TestRunInputNamesAreUsageErrors(t *testing.T) {
	script := writeScript(t, "return 1")
	for _, tc := range []struct {
		name   string
		inputs []string
		stderr string
	}{
		{"repeated", []string{"a=1", "b=2", "a=3"}, `invalid value "a=3" for flag --input: "a" is already given by an earlier --input`},
		{"empty", []string{"=1"}, `want name=value, got "=1"`},
		{"starts with a digit", []string{"1a=x"}, `"1a" must start with a letter`},
		{"not an identifier", []string{"a-b=x"}, `"a-b" is not a JavaScript identifier`},
		{"reserved word", []string{"return=x"}, `"return" is a reserved word`},
		{"the function's name", []string{"execute=x"}, `"execute" is a reserved word`},
		{"FlowScript's prefix", []string{"$flowscript$x=1"}, "which FlowScript keeps for its own names"},
		{"too long", []string{strings.Repeat("a", 129) + "=x"}, "must be at most 128 bytes, got 129"},
		{"not UTF-8", []string{"a\xff=x"}, "must be valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := &flowjob.Job{ID: "j", SessionID: "s", FlowID: "f", BlockID: "b", Context: flowjob.ContextTool,
				Action: flowjob.ExecuteScriptAction{Type: flowjob.ActionTypeExecuteScript, Source: "return 1", OutputVariable: "r", OnError: flowjob.OnErrorContinue}}
			args := []string{"run"}
			for _, in := range tc.inputs {
				name, value, _ := strings.Cut(in, "=")
				job.Action.InputVariables = append(job.Action.InputVariables, flowjob.InputVariable{Name: name, Value: value})
				args = append(args, "--input", in)
			}
			if err := job.Validate(); err == nil || !strings.Contains(err.Error(), "action.inputVariables[") {
				t.Fatalf("flowjob accepts these inputs (%v): not a rule of the validator's", err)
			}
			code, stdout, stderr := invocation{args: append(args, script)}.run(t)
			if code != ExitUsage || stdout != "" || !strings.Contains(stderr, tc.stderr) || !strings.Contains(stderr, "Run 'flowscript help run'") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and stderr with %q", code, stdout, stderr, ExitUsage, tc.stderr)
			}
		})
	}
}

func TestRunOne(t *testing.T) {
	cpf := writeScript(t, cpfScript)
	for _, tc := range []struct {
		name   string
		inv    invocation
		code   int
		stdout string
		stderr string
	}{
		{"full file with an input", invocation{args: []string{"run", "--input", "cpf=123.456.789-09", cpf}}, ExitOK, "valido\n", ""},
		{"flags after the file", invocation{args: []string{"run", cpf, "--input", "cpf=1"}}, ExitOK, "invalido\n", ""},
		{"body from stdin", invocation{args: []string{"run", "-"}, stdin: "return 1 + 1"}, ExitOK, "2\n", ""},
		{"inputs in the order given", invocation{args: []string{"run", "--input", "b=1", "--input", "a=2", "-"},
			stdin: "function execute(first, second) { return first + second }"}, ExitOK, "12\n", ""},
		{"value with =", invocation{args: []string{"run", "--input", "q=a=b", "-"}, stdin: "return q"}, ExitOK, "a=b\n", ""},
		{"script error", invocation{args: []string{"run", "-"}, stdin: "const a = 1\nnull.x"}, ExitFailed, "",
			"SCRIPT_ERROR: TypeError: Cannot read properties of null (reading 'x') (line 2, column 6)\n"},
		{"limit from the environment", invocation{args: []string{"run", "-"}, stdin: "for (;;) {}",
			env: map[string]string{"SANDBOX_TIMEOUT_MS": "200"}}, ExitFailed, "", "SCRIPT_TIMEOUT: Script execution timed out"},
		{"memory limit", invocation{args: []string{"run", "-"}, stdin: "return 'x'.repeat(4e8)"}, ExitFailed, "",
			"SCRIPT_MEMORY_LIMIT: Script exceeded the memory limit of 32 MB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := tc.inv.run(t)
			if code != tc.code || stdout != tc.stdout || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q",
					code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

func TestRunJSON(t *testing.T) {
	for _, tc := range []struct {
		name   string
		source string
		code   int
		want   string // the line with durationMs zeroed
	}{
		{"success", "return {a: 1}", ExitOK, `{"output":"{\"a\":1}","error":null,"durationMs":0}`},
		{"failure", "\n  throw new Error('boom')", ExitFailed,
			`{"output":"","error":{"code":"SCRIPT_ERROR","message":"Error: boom","line":2,"column":9},"durationMs":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := invocation{args: []string{"run", "--json", "-"}, stdin: tc.source}.run(t)
			var got resultJSON
			if err := json.Unmarshal([]byte(stdout), &got); err != nil || !strings.HasSuffix(stdout, "}\n") {
				t.Fatalf("stdout %q is not one JSON line: %v (stderr %q)", stdout, err, stderr)
			}
			if got.DurationMs <= 0 {
				t.Errorf("durationMs %v; want the run's duration", got.DurationMs)
			}
			got.DurationMs = 0
			line, _ := json.Marshal(got)
			if code != tc.code || string(line) != tc.want {
				t.Errorf("exit %d, %s; want exit %d, %s", code, line, tc.code, tc.want)
			}
		})
	}
}

func TestRunJobs(t *testing.T) {
	input := strings.Join([]string{
		`{"id": 1, "source": "return a + b", "inputVariables": [{"name": "a", "value": "x"}, {"name": "b", "value": "y"}]}`,
		`{"id": "slow", "source": "for (;;) {}"}`,
		``,
		`not json`,
		`{"id": 3, "source": "return 3", "inputs": []}`,
		`{"id": {"k": 4}, "source": "null.x"}`,
		`{"source": "return 'no id'"}`,
	}, "\n")
	code, stdout, stderr := invocation{args: []string{"run", "--jobs", "-"}, stdin: input,
		env: map[string]string{"SANDBOX_TIMEOUT_MS": "300", "SANDBOX_MAX_PARALLEL": "3"}}.run(t)
	if code != ExitFailed {
		t.Errorf("exit %d; want %d (some jobs failed); stderr %q", code, ExitFailed, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	got := map[string]string{}
	for _, line := range lines {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Line   int             `json:"line"`
			Output string          `json:"output"`
			Error  *errorJSON      `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		summary := r.Output
		if r.Error != nil {
			summary = string(r.Error.Code)
		}
		if r.Line != 0 {
			summary += " at line " + string(rune('0'+r.Line))
		}
		got[string(r.ID)] = got[string(r.ID)] + summary + ";"
	}
	want := map[string]string{
		`1`:       "xy;",
		`"slow"`:  "SCRIPT_TIMEOUT;",
		`3`:       "INVALID_JOB at line 5;",
		`{"k":4}`: "SCRIPT_ERROR;",
		`null`:    "INVALID_JOB at line 4;no id;",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("id %s: got %q; want %q", id, got[id], w)
		}
	}
	if len(lines) != 6 {
		t.Errorf("%d result lines; want 6 (one per non-empty input line):\n%s", len(lines), stdout)
	}
	// The slow job finished last although it was read second: results are
	// printed as jobs finish.
	if !strings.Contains(lines[len(lines)-1], `"slow"`) {
		t.Errorf("last line %q; want the slow job's", lines[len(lines)-1])
	}
}

func TestRunJobsAllSucceed(t *testing.T) {
	var input strings.Builder
	for i := range 40 {
		input.WriteString(`{"id": ` + string(rune('0'+i%10)) + `, "source": "return 'ok'"}` + "\n")
	}
	code, stdout, stderr := invocation{args: []string{"run", "--jobs", "-"}, stdin: input.String(),
		env: map[string]string{"SANDBOX_MAX_PARALLEL": "4"}}.run(t)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != ExitOK || len(lines) != 40 || slices.ContainsFunc(lines, func(l string) bool { return !strings.Contains(l, `"output":"ok","error":null`) }) {
		t.Errorf("exit %d, %d lines, stderr %q:\n%s", code, len(lines), stderr, stdout)
	}
}

// A script over the source cap is refused with its own size (a file), not
// the one byte over the cap the command reads of it.
func TestRunNamesTheSizeOfAScriptOverTheCap(t *testing.T) {
	source := "return '" + strings.Repeat("x", 300) + "'"
	env := map[string]string{"SANDBOX_MAX_SOURCE_BYTES": "100", "SANDBOX_MAX_PARALLEL": "1"}
	code, stdout, stderr := invocation{args: []string{"run", "--json", writeScript(t, source)}, env: env}.run(t)
	want := fmt.Sprintf(`"code":"INVALID_JOB","message":"source is %d bytes, over the limit of 100 (SANDBOX_MAX_SOURCE_BYTES)`, len(source))
	if code != ExitFailed || !strings.Contains(stdout, want) {
		t.Errorf("file: exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
	code, _, stderr = invocation{args: []string{"run", "-"}, stdin: source, env: env}.run(t)
	if want := "INVALID_JOB: source is over the limit of 100 (SANDBOX_MAX_SOURCE_BYTES)"; code != ExitFailed || !strings.Contains(stderr, want) {
		t.Errorf("standard input: exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// A byte order mark at the start of a jobs file is not part of its first job.
func TestJobsFileWithAByteOrderMark(t *testing.T) {
	code, stdout, stderr := invocation{args: []string{"run", "--jobs", "-"}, stdin: "\uFEFF" + `{"id": 1, "source": "return 7"}` + "\n"}.run(t)
	if code != ExitOK || !strings.Contains(stdout, `"id":1,"output":"7","error":null`) {
		t.Errorf("exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
}

// A --jobs line is held to a job's rules on its inputs: a value is
// required (it may be ""), an input is an object, and the text is UTF-8;
// what encoding/json would let through as "" or U+FFFD is refused, with
// the line's number, and the other lines still run.
func TestRunJobsLineInputsAreChecked(t *testing.T) {
	notUTF8 := `{"id": "u", "source": "return x", "inputVariables": [{"name": "x", "value": "a` + "\xff" + `b"}]}`
	input := strings.Join([]string{
		`{"id": "c", "source": "return x", "inputVariables": [{"name": "x"}]}`,
		`{"id": "n", "source": "return x", "inputVariables": [{"name": "x", "value": null}]}`,
		`{"id": "e", "source": "return x", "inputVariables": [null]}`,
		notUTF8,
		`{"id": "two", "source": "return x", "inputVariables": [{"name": "x"}, {"name": "y"}]}`,
		`{"id": "ok", "source": "return '[' + x + ']'", "inputVariables": [{"name": "x", "value": ""}]}`,
		`{"id": "dup", "source": "return x", "inputVariables": [{"name": "x", "value": "1"}, {"name": "x", "value": "2"}]}`,
	}, "\n")
	code, stdout, stderr := invocation{args: []string{"run", "--jobs", "-"}, stdin: input,
		env: map[string]string{"SANDBOX_MAX_PARALLEL": "2"}}.run(t)
	if code != ExitFailed {
		t.Errorf("exit %d; want %d; stderr %q", code, ExitFailed, stderr)
	}
	got := map[string]resultJSON{}
	for line := range strings.Lines(stdout) {
		var r resultJSON
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		got[string(r.ID)] = r
	}
	for id, want := range map[string]struct {
		line    int
		message string
	}{
		`"c"`:   {1, `line 1: inputVariables[0].value: required (it may be "")`},
		`"n"`:   {2, `line 2: inputVariables[0].value: required (it may be "")`},
		`"e"`:   {3, "line 3: inputVariables[0]: must be an object with a name and a value, got null"},
		`"u"`:   {4, fmt.Sprintf("line 4: not UTF-8 text (byte 0xFF at offset %d of the line): save the jobs file as UTF-8", strings.IndexByte(notUTF8, 0xFF))},
		`"two"`: {5, `line 5: inputVariables[0].value: required (it may be ""); inputVariables[1].value: required (it may be "")`},
		`"dup"`: {0, `inputVariables[1].name: "x" is already used by inputVariables[0]`},
	} {
		r, ok := got[id]
		if !ok || r.Line != want.line || r.Error == nil || r.Error.Code != "INVALID_JOB" || !strings.Contains(r.Error.Message, want.message) {
			t.Errorf("id %s: %+v (error %+v); want line %d and INVALID_JOB %q", id, r, r.Error, want.line, want.message)
		}
	}
	if r := got[`"ok"`]; r.Error != nil || r.Output != "[]" {
		t.Errorf(`an empty value: %+v (error %+v); want output "[]"`, r, r.Error)
	}
	if len(got) != 7 {
		t.Errorf("%d results; want 7:\n%s", len(got), stdout)
	}
}

func TestReadLineCapsLongLines(t *testing.T) {
	code, stdout, stderr := invocation{args: []string{"run", "--jobs", "-"},
		stdin: `{"id": 1, "source": "` + strings.Repeat("a", 70000) + `"}` + "\n" + `{"id": 2, "source": "return 2"}` + "\n",
		env:   map[string]string{"SANDBOX_MAX_SOURCE_BYTES": "1", "SANDBOX_MAX_INPUT_BYTES": "1", "SANDBOX_MAX_PARALLEL": "1"}}.run(t)
	if code != ExitFailed || !strings.Contains(stdout, `"line":1`) || !strings.Contains(stdout, `"id":2,"output":"","error":{"code":"INVALID_JOB"`) {
		t.Errorf("exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
}

// A --jobs line that does not decode as a job is refused with its field,
// index and JSON types, never Go's names for them.
func TestRunJobsLineErrorsNameTheField(t *testing.T) {
	cases := []struct{ line, want string }{
		{`{"id": 1, "source": 5}`, "source must be a string, got a number"},
		{`{"id": 2, "source": "return 1", "inputVariables": {"x": "1"}}`, "inputVariables must be an array, got an object"},
		{`{"id": 3, "source": "return 1", "inputVariables": [{"name": "a", "value": "1"}, 5]}`, "inputVariables[1] must be an object, got a number"},
		{`{"id": 4, "source": "return 1", "inputVariables": [{"name": "a", "value": "1"}, {"name": 1, "value": "1"}]}`, "inputVariables[1].name must be a string, got a number"},
		{`{"id": 5, "source": "return 1", "inputVariables": [{"name": "a", "value": true}]}`, "inputVariables[0].value must be a string, got a boolean"},
		{`[1]`, "the line is an array, not an object"},
		{`{"id": 7, "source": "return 1", "timeout": 5}`, `not a job: unknown field "timeout"`},
		{`{"id": 10, "source": "return 1", "inputVariables": [{"name": "a", "value": "1"}, {"name": "b", "vale": "1"}]}`, `inputVariables[1]: unknown field "vale"`},
		{`{"id": 11, "timeout": 5, "inputVariables": [{"name": "a", "value": "1", "x": 1}]}`, `not a job: unknown field "timeout"`},
		{`{"id": 12, "source": "return 1", "x": 1, "inputVariables": [{"name": "a", "value": "1", "x": 1}]}`, `not a job: unknown field "x"`},
		{`{"id": 8, "source": "return 1"`, "the line ends in the middle of a JSON value"},
		{`{"id": 9, "source": return}`, "not valid JSON at byte"},
	}
	var input strings.Builder
	for _, c := range cases {
		input.WriteString(c.line + "\n")
	}
	code, stdout, stderr := invocation{args: []string{"run", "--jobs", "-"}, stdin: input.String()}.run(t)
	if code != ExitFailed {
		t.Errorf("exit %d; want %d; stderr %q", code, ExitFailed, stderr)
	}
	byLine := map[int]string{}
	for line := range strings.Lines(stdout) {
		var r resultJSON
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Error == nil {
			t.Fatalf("output line %q: %v, want an error", line, err)
		}
		byLine[r.Line] = r.Error.Message
	}
	for i, c := range cases {
		got := byLine[i+1]
		if !strings.Contains(got, c.want) || !strings.Contains(got, "not a job") {
			t.Errorf("line %d %s: message %q, want %q", i+1, c.line, got, c.want)
		}
		for _, goName := range []string{"Go ", "jobLine", "sandbox.", "json:"} {
			if strings.Contains(got, goName) {
				t.Errorf("line %d: message %q names %q", i+1, got, goName)
			}
		}
	}
}
