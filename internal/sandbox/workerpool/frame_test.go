package workerpool

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/guardrails"
	"github.com/flowscript/flowscript/internal/sandbox"
)

func TestFrameRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	job := &frame{Kind: kindJob, ID: 7, Job: &sandbox.Request{Source: "return x", Timeout: time.Second,
		Inputs: []sandbox.Input{{Name: "x", Value: "é\x00\u2028"}}}}
	res := &frame{Kind: kindResult, ID: 7, Result: &sandbox.Result{Err: &sandbox.Error{Code: sandbox.CodeScriptError, Message: "boom", Line: 2, Column: 3}}}
	for _, f := range []*frame{job, res} {
		if err := writeFrame(&buf, f); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(&buf)
	got, err := readFrame(r, 1<<20)
	if err != nil || got.ID != 7 || got.Job.Inputs[0].Value != "é\x00\u2028" || got.Job.Timeout != time.Second {
		t.Fatalf("job frame: %+v, %v", got, err)
	}
	got, err = readFrame(r, 1<<20)
	if err != nil || *got.Result.Err != *res.Result.Err {
		t.Fatalf("result frame: %+v, %v", got, err)
	}
	if _, err := readFrame(r, 1<<20); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last frame: %v; want io.EOF", err)
	}
}

func TestReadFrameRejects(t *testing.T) {
	valid, _ := appendFrame(nil, &frame{Kind: kindReady, Ready: &readyInfo{PID: 1}})
	for _, tc := range []struct {
		name, input, want string
	}{
		{"text instead of a frame", "hello world, I am not a frame\n", `expected magic "FSW2"`},
		{"over the size limit", frameMagic + "\x00\x10\x00\x00", "over the 200-byte frame limit"},
		{"truncated header", "FSW", "inside a frame header"},
		{"truncated body", string(valid[:len(valid)-3]), "inside a"},
		{"unknown kind", frameMagic + "\x00\x00\x00\x03abc", "unknown kind byte 'a'"},
		{"config that is not JSON", frameMagic + "\x00\x00\x00\x03cab", "decoding body"},
		{"job cut short", frameMagic + "\x00\x00\x00\x05j\x00\x00\x00\x01", "ends inside a field"},
		{"job with bytes left over", string(withTrailingByte(t, &frame{Kind: kindJob, ID: 1, Job: &sandbox.Request{Source: "x"}})), "1 bytes left"},
		{"string past the end", frameMagic + "\x00\x00\x00\x13j" + strings.Repeat("\x00", 16) + "\x7f\x01", "ends inside a field"},
		{"input count over the body", frameMagic + "\x00\x00\x00\x13j" + strings.Repeat("\x00", 16) + "\x00\x7f", "127 inputs announced in 0 bytes"},
		{"unknown result flag", frameMagic + "\x00\x00\x00\x13R" + strings.Repeat("\x00", 8) + "\x40" + strings.Repeat("\x00", 9), "unknown result flags 0x40"},
		{"unknown retirement reason", frameMagic + "\x00\x00\x00\x14R" + strings.Repeat("\x00", 8) + "\x01\x09" + strings.Repeat("\x00", 9), "unknown retirement reason 9"},
		{"retiring without a reason", frameMagic + "\x00\x00\x00\x14R" + strings.Repeat("\x00", 8) + "\x01\x00" + strings.Repeat("\x00", 9), "unknown retirement reason 0"},
		{"report that is not JSON", frameMagic + "\x00\x00\x00\x13K" + strings.Repeat("\x00", 8) + "\x00" + strings.Repeat("\x00", 8) + "{", "report:"},
		{"report error without a code", string(mustFrame(t, &frame{Kind: kindReport, ID: 1, Report: &checkReport{Err: &sandbox.Error{Message: "m"}}})), "an error without a code"},
		{"check names over the body", // 0x7f announces 126 names (0 is nil)
			frameMagic + "\x00\x00\x00\x13k" + strings.Repeat("\x00", 16) + "\x00\x7f", "126 input names announced in 0 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readFrame(bufio.NewReader(strings.NewReader(tc.input)), 200)
			if !errors.Is(err, errMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v; want a malformed-frame error containing %q", err, tc.want)
			}
		})
	}
}

func mustFrame(t *testing.T, f *frame) []byte {
	t.Helper()
	b, err := appendFrame(nil, f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withTrailingByte encodes f with one byte too many in its body.
func withTrailingByte(t *testing.T, f *frame) []byte {
	t.Helper()
	b, err := appendFrame(nil, f)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, 0)
	b[7]++
	return b
}

// TestFrameKindsRoundTrip: every kind, with every optional part, decodes to
// what was encoded.
func TestFrameKindsRoundTrip(t *testing.T) {
	for _, f := range []*frame{
		{Kind: kindConfig, Config: &workerConfig{TimeoutMS: 5000, MemoryMB: 32, TimeZone: "America/Sao_Paulo"}},
		{Kind: kindReady, Ready: &readyInfo{PID: 9, EnvironBytes: -1, RlimitASBytes: 1 << 40, Error: "x"}},
		{Kind: kindJob, ID: 1<<64 - 1, Job: &sandbox.Request{Source: "", Timeout: -1}},
		{Kind: kindJob, ID: 2, Job: &sandbox.Request{Source: strings.Repeat("é", 300), Inputs: []sandbox.Input{{Name: "a"}, {Name: "b", Value: "\x00"}}}},
		{Kind: kindResult, ID: 3, Result: &sandbox.Result{Output: "", Duration: time.Millisecond}},
		{Kind: kindResult, ID: 4, Retiring: retirePanic, Result: &sandbox.Result{Duration: 1, Err: &sandbox.Error{Code: sandbox.CodeCrash, Message: "m"}}},
		{Kind: kindResult, ID: 5, Retiring: retireSpent, Result: &sandbox.Result{Output: "x"}},
		{Kind: kindResult, ID: 11, Collecting: true, Result: &sandbox.Result{Output: "x", Logs: []sandbox.LogEntry{{Level: "log", Message: "m", Line: 1}}}},
		{Kind: kindCheck, ID: 6, Check: &checkRequest{Timeout: time.Second, Source: "return 1", InputNames: []string{"a", "é"}}},
		{Kind: kindCheck, ID: 7, Check: &checkRequest{Source: ""}},
		// No inputs (a test run) stays apart from unknown ones (a save).
		{Kind: kindCheck, ID: 10, Check: &checkRequest{Source: "return document", InputNames: []string{}}},
		{Kind: kindReport, ID: 8, Report: &checkReport{Duration: 3, Report: guardrails.Report{
			Compile:  &sandbox.Error{Code: sandbox.CodeSyntaxError, Message: "SyntaxError: x", Line: 1, Column: 2},
			Findings: []guardrails.Finding{{Code: guardrails.CodeProcess, Severity: guardrails.SeverityError, Name: "process", Message: "m", Line: 3, Column: 4}},
			Parse:    &sandbox.Error{Code: sandbox.CodeSyntaxError, Message: "y"},
		}}},
		{Kind: kindReport, ID: 12, Collecting: true, Report: &checkReport{Report: guardrails.Report{Findings: []guardrails.Finding{}}}},
		{Kind: kindReport, ID: 9, Retiring: retireBaseline, Report: &checkReport{Report: guardrails.Report{Findings: []guardrails.Finding{}},
			Err: &sandbox.Error{Code: sandbox.CodeMemoryLimit, Message: "m"}}},
	} {
		b, err := appendFrame([]byte("prefix"), f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readFrame(bufio.NewReader(bytes.NewReader(b[len("prefix"):])), 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", f.Kind, err)
		}
		if !reflect.DeepEqual(got, f) {
			t.Errorf("%s frame: got %+v; want %+v", f.Kind, got, f)
		}
	}
	if _, err := appendFrame(nil, &frame{Kind: kindJob}); err == nil || !strings.Contains(err.Error(), "no payload") {
		t.Errorf("a job frame without a job: %v", err)
	}
}

func FuzzReadFrame(f *testing.F) {
	for _, fr := range []*frame{
		{Kind: kindJob, ID: 1, Job: &sandbox.Request{Source: "return 1", Inputs: []sandbox.Input{{Name: "a", Value: "b"}}}},
		{Kind: kindResult, ID: 1, Result: &sandbox.Result{Err: &sandbox.Error{Code: "C", Message: "m", Line: 1, Column: 2}}},
		{Kind: kindReady, Ready: &readyInfo{PID: 1}},
		{Kind: kindCheck, ID: 2, Check: &checkRequest{Source: "return 1", InputNames: []string{"a"}}},
		{Kind: kindReport, ID: 2, Retiring: retireSpent, Report: &checkReport{Report: guardrails.Report{Findings: []guardrails.Finding{}}}},
	} {
		valid, _ := appendFrame(nil, fr)
		f.Add(valid)
	}
	f.Add([]byte("garbage"))
	f.Add([]byte(frameMagic + "\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for {
			fr, err := readFrame(r, 1<<16)
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, errMalformed) {
					t.Fatalf("unexpected error class: %v", err)
				}
				return
			}
			if fr == nil {
				t.Fatal("nil frame without an error")
			}
			// What decodes encodes again to a frame that decodes the same.
			again, err := appendFrame(nil, fr)
			if err != nil {
				t.Fatalf("re-encoding %+v: %v", fr, err)
			}
			back, err := readFrame(bufio.NewReader(bytes.NewReader(again)), len(again))
			if err != nil || !reflect.DeepEqual(back, fr) {
				t.Fatalf("round trip of %+v: got %+v, %v", fr, back, err)
			}
		}
	})
}

// TestVerdict pins how a dead worker's stderr maps to the job's error.
func TestVerdict(t *testing.T) {
	p := &Pool{cfg: Config{Limits: sandbox.Limits{MemoryMB: 32}}}
	for _, tc := range []struct {
		name   string
		stderr string
		end    ending
		code   sandbox.Code
		reason string
	}{
		{"runtime out of memory", "fatal error: runtime: out of memory\n\nruntime stack:\n", endDied, sandbox.CodeMemoryLimit, "memory"},
		{"large block", "runtime: out of memory: cannot allocate 1002438656-byte block (3932160 in use)\nfatal error: out of memory\n", endDied, sandbox.CodeMemoryLimit, "memory"},
		{"arena metadata", "fatal error: out of memory allocating heap arena metadata\n", endDied, sandbox.CodeMemoryLimit, "memory"},
		{"cannot allocate", "fatal error: runtime: cannot allocate memory\n", endDied, sandbox.CodeMemoryLimit, "memory"},
		{"thread ENOMEM", "runtime: failed to create new OS thread (have 5 already; errno=12)\n", endDied, sandbox.CodeMemoryLimit, "memory"},
		{"watchdog budget", stderrMemoryHard + ": 1 bytes mapped, budget 0\n", endDied, sandbox.CodeMemoryLimit, "memory"},
		{"tripped then killed at the deadline", stderrMemoryTrip + ": live heap 2\n", endDeadline, sandbox.CodeMemoryLimit, "memory"},
		{"GC fault at the memory limit", "SIGSEGV: segmentation violation\nPC=0x437cbd m=0 sigcode=1 addr=0x0\n\ngoroutine 0 gp=0xfae300 m=0 mp=0xfaf300 [idle]:\nruntime.(*spanQueue).tryDrain(0x7ffe00000400?)\n", endDied, sandbox.CodeMemoryLimit, "memory"},
		{"stack overflow", "runtime: goroutine stack exceeds 16777216-byte limit\nruntime: sp=0xc0200e0388\nfatal error: stack overflow\n", endDied, sandbox.CodeScriptError, "stack"},
		{"stack overflow running", "runtime: goroutine stack exceeds 8388608-byte limit\nfatal error: stack overflow\n\nruntime stack:\nruntime.throw({0x9c9a77?, 0x0?})\n\ngoroutine 1 gp=0xc000002380 m=0 mp=0xfae240 [running]:\ngithub.com/dop251/goja.(*vm).run(0xc0001f2000)\n", endDied, sandbox.CodeScriptError, "stack"},
		{"stack overflow parsing", "runtime: goroutine stack exceeds 8388608-byte limit\nfatal error: stack overflow\n\nruntime stack:\nruntime.throw({0x9c9a77?, 0x0?})\n\ngoroutine 1 gp=0xc000002380 m=0 mp=0xfae240 [running]:\ngithub.com/dop251/goja/parser.(*_parser).parseUnaryExpression(0xc0001f2000)\n", endDied, sandbox.CodeSyntaxError, "stack"},
		{"stack overflow in a helper of the parser", "runtime: goroutine stack exceeds 8388608-byte limit\nfatal error: stack overflow\n\ngoroutine 1 gp=0xc7b m=0 [running]:\ninternal/strconv.ParseInt({0xc7b5dd40e2b?, 0x1?}, 0x0?, 0x40?)\n\t/usr/local/go/src/internal/strconv/atoi.go:171 +0x18b\nstrconv.ParseInt({0xc7b5dd40e2b, 0x1}, 0x0, 0x40)\n\t/usr/local/go/src/strconv/atoi.go:10\ngithub.com/dop251/goja/parser.(*_parser).scan(0x3cc)\n", endDied, sandbox.CodeSyntaxError, "stack"},
		{"stack overflow in a helper while running", "runtime: goroutine stack exceeds 8388608-byte limit\nfatal error: stack overflow\n\ngoroutine 1 gp=0xc7b m=0 [running]:\nstrconv.ParseInt({0xc7b5dd40e2b, 0x1}, 0x0, 0x40)\n\t/usr/local/go/src/strconv/atoi.go:10\ngithub.com/dop251/goja.(*vm).run(0x3cc)\n", endDied, sandbox.CodeScriptError, "stack"},
		{"stack overflow compiling", "runtime: goroutine stack exceeds 8388608-byte limit\nfatal error: stack overflow\n\ngoroutine 1 gp=0xc000002380 m=0 mp=0xfae240 [running]:\ngithub.com/dop251/goja.(*compiler).compileExpression(0xc0001f2000)\n", endDied, sandbox.CodeSyntaxError, "stack"},
		{"killed at the deadline", "", endDeadline, sandbox.CodeTimeout, "timeout"},
		{"cancelled", "", endCanceled, sandbox.CodeTimeout, "canceled"},
		{"garbage", "", endProtocol, sandbox.CodeCrash, "protocol"},
		{"fault outside the runtime", "SIGSEGV: segmentation violation\n\ngoroutine 1 gp=0x1 m=0 [running]:\nmain.f()\n", endDied, sandbox.CodeCrash, "crash"},
		{"concurrent map writes", "fatal error: concurrent map writes\n\ngoroutine 1 [running]:\n", endDied, sandbox.CodeCrash, "crash"},
		{"silent exit", "", endDied, sandbox.CodeCrash, "crash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proc := &process{exited: make(chan struct{})}
			_, _ = proc.stderr.Write([]byte(tc.stderr))
			got, reason := p.verdict(proc, kindJob, tc.end, errors.New("exit status 2"))
			if got.Code != tc.code || reason != tc.reason {
				t.Errorf("got %v (%s); want %s (%s)", got, reason, tc.code, tc.reason)
			}
		})
	}
}

// TestVerdictOfACheck: a check runs nothing, so a stack overflow in its
// worker is the source's nesting, whatever the frames say.
func TestVerdictOfACheck(t *testing.T) {
	p := &Pool{cfg: Config{Limits: sandbox.Limits{MemoryMB: 32}}}
	proc := &process{exited: make(chan struct{})}
	_, _ = proc.stderr.Write([]byte("runtime: goroutine stack exceeds 8388608-byte limit\nfatal error: stack overflow\n"))
	if got, reason := p.verdict(proc, kindCheck, endDied, nil); got.Code != sandbox.CodeSyntaxError || reason != "stack" {
		t.Errorf("got %v (%s); want SCRIPT_SYNTAX_ERROR (stack)", got, reason)
	}
}

func TestStderrTailKeepsHeadAndTail(t *testing.T) {
	var s stderrTail
	_, _ = s.Write([]byte("fatal error: runtime: out of memory\n"))
	_, _ = s.Write(bytes.Repeat([]byte("goroutine dump line\n"), 5000))
	_, _ = s.Write([]byte("last line\n"))
	text := s.text()
	if !strings.HasPrefix(text, "fatal error: runtime: out of memory") || !strings.HasSuffix(text, "last line\n") || len(text) > stderrHeadMax+stderrTailMax+16 {
		t.Errorf("head %q… tail …%q, %d bytes", text[:40], text[len(text)-20:], len(text))
	}
	s.reset()
	if s.text() != "" {
		t.Error("reset kept text")
	}
}
