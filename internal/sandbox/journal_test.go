package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// postHost counts host calls and answers each with its number.
type postHost struct{ n atomic.Int64 }

func (h *postHost) Call(_ context.Context, c HostCall) HostReply {
	n := h.n.Add(1)
	return HostReply{Value: json.RawMessage(`{"n":` + string(rune('0'+n)) + `}`)}
}

const approvalScript = `
const t = Date.now(), d = new Date().toISOString(), r = Math.random()
console.log(String(t), d, String(r))
const first = api.post('crm', '/refunds', {amount: 10})
let answer
try { answer = approval.request({message: 'Reembolsar 10?', data: {amount: 10}}) } catch (e) { return 'caught ' + e }
const second = api.post('crm', '/refunds/confirm', {ok: answer.ok})
return [t, d, r, first.n, answer.ok, second.n].join('|')`

func resume(t *testing.T, source string, host Host, grants []string, journal, resolution json.RawMessage) Result {
	t.Helper()
	// Generous: the journal cap's loop reads the clock ~100,000 times, over
	// 2 s under -race on a busy CI machine; no test here waits for it.
	return Execute(context.Background(), Limits{Timeout: 10 * time.Second}.WithDefaults(),
		Request{Source: source, Capabilities: grants, Host: host, Journal: journal, Resolution: resolution})
}

func TestApprovalSuspendsAndResumes(t *testing.T) {
	host := &postHost{}
	grants := []string{"api", "approval"}
	first := resume(t, approvalScript, host, grants, nil, nil)
	if first.Err != nil || first.Suspended == nil || first.Output != "" {
		t.Fatalf("first run: %q %+v, suspended %v", first.Output, first.Err, first.Suspended)
	}
	if string(first.Suspended.Request) != `{"message":"Reembolsar 10?","data":{"amount":10}}` {
		t.Errorf("request %s", first.Suspended.Request)
	}
	if host.n.Load() != 1 || len(first.Logs) != 1 {
		t.Fatalf("%d host calls, logs %+v", host.n.Load(), first.Logs)
	}
	logged := strings.Fields(first.Logs[0].Message) // t, d, r as the first run saw them
	time.Sleep(5 * time.Millisecond)
	second := resume(t, approvalScript, host, grants, first.Suspended.Journal, json.RawMessage(`{"ok":true}`))
	if second.Err != nil || second.Suspended != nil {
		t.Fatalf("resume: %+v, suspended %v", second.Err, second.Suspended)
	}
	want := strings.Join([]string{logged[0], logged[1], logged[2], "1", "true", "2"}, "|")
	if second.Output != want {
		t.Errorf("resumed output %q, want %q (time and randomness replayed, the first post not repeated)", second.Output, want)
	}
	if host.n.Load() != 2 {
		t.Errorf("%d host calls in all, want 2: the recorded one must not run again", host.n.Load())
	}
}

// A resumed run's console lines are those after the resume point: the
// suspended result carried the earlier ones, and replaying them again
// would fill the caps before the lines the author needs.
func TestResumedRunLogsItsLivePart(t *testing.T) {
	src := `for (let i = 0; i < 150; i++) console.log('before ' + i)
const a = approval.request({message: 'one'})
console.log('after one', a)
const b = approval.request({message: 'two'})
console.log('after two', b)
return a + b`
	grants := []string{"approval"}
	r1 := resume(t, src, nil, grants, nil, nil)
	if r1.Suspended == nil || len(r1.Logs) != 100 || !r1.LogsTruncated {
		t.Fatalf("first: %+v, %d lines, truncated %v", r1.Err, len(r1.Logs), r1.LogsTruncated)
	}
	r2 := resume(t, src, nil, grants, r1.Suspended.Journal, json.RawMessage(`"A"`))
	if r2.Suspended == nil || len(r2.Logs) != 1 || r2.Logs[0].Message != "after one A" || r2.Logs[0].Line != 3 || r2.LogsTruncated {
		t.Fatalf("second: %+v, logs %+v, truncated %v", r2.Err, r2.Logs, r2.LogsTruncated)
	}
	r3 := resume(t, src, nil, grants, r2.Suspended.Journal, json.RawMessage(`"B"`))
	if r3.Err != nil || r3.Output != "AB" || len(r3.Logs) != 1 || r3.Logs[0].Message != "after two B" {
		t.Fatalf("third: %q %+v, logs %+v", r3.Output, r3.Err, r3.Logs)
	}
}

// A resumed run that logs nothing after its approval, or that fails in its
// replay, carries none of the suspended run's lines.
func TestResumedRunWithoutLiveLines(t *testing.T) {
	src := "console.log('before')\nconst a = approval.request({message: 'one'})\nreturn a"
	grants := []string{"approval"}
	r1 := resume(t, src, nil, grants, nil, nil)
	if r1.Suspended == nil || len(r1.Logs) != 1 {
		t.Fatalf("first: %+v, logs %+v", r1.Err, r1.Logs)
	}
	if r2 := resume(t, src, nil, grants, r1.Suspended.Journal, json.RawMessage(`"A"`)); r2.Output != "A" || len(r2.Logs) != 0 {
		t.Errorf("resumed: %q %+v, logs %+v; want no lines", r2.Output, r2.Err, r2.Logs)
	}
	diverging := "console.log('before')\nDate.now()\nconst a = approval.request({message: 'one'})\nreturn a"
	if r3 := resume(t, diverging, nil, grants, r1.Suspended.Journal, json.RawMessage(`"A"`)); r3.Err == nil || len(r3.Logs) != 0 {
		t.Errorf("diverged in the replay: %+v, logs %+v; want no lines", r3.Err, r3.Logs)
	}
}

// Resolve's result holds every run's console lines once, in order.
func TestResolveKeepsEveryRunsLines(t *testing.T) {
	src := `console.log('one')
const a = approval.request({message: 'first'})
console.log('two', a)
const b = approval.request({message: 'second'})
console.log('three', b)
return a + b`
	runner := NewInProcess(Limits{Timeout: 2 * time.Second})
	res, requests := Resolve(context.Background(), runner, Request{Source: src, Capabilities: []string{"approval"}},
		[]json.RawMessage{json.RawMessage(`"A"`), json.RawMessage(`"B"`)}, 2*time.Second)
	var lines []string
	for _, l := range res.Logs {
		lines = append(lines, l.Message)
	}
	if res.Err != nil || res.Output != "AB" || len(requests) != 2 || strings.Join(lines, "|") != "one|two A|three B" {
		t.Fatalf("%q %+v, %d requests, lines %q", res.Output, res.Err, len(requests), lines)
	}
}

// TestResolveSharesOneTimeLimit: the runs of Resolve share its budget. A
// script that computes for a while before each approval replays that work
// in every resumed run; with a fresh limit per run, ten resolutions took
// 1+2+…+10 = 55 spins of wall time and reported the last run's duration.
func TestResolveSharesOneTimeLimit(t *testing.T) {
	runner := NewInProcess(Limits{Timeout: time.Minute})
	// One spin: about 50 ms on this machine (calibrated, so -race holds too).
	const probe = 200_000
	spin := func(n int) string { return fmt.Sprintf("for (let k = 0; k < %d; k++) {}\n", n) }
	cal := runner.Run(context.Background(), Request{Source: spin(probe) + "return 1"})
	if cal.Err != nil {
		t.Fatal(cal.Err)
	}
	n := max(1, int(float64(probe)*float64(50*time.Millisecond)/float64(max(cal.Duration, time.Microsecond))))
	x := runner.Run(context.Background(), Request{Source: spin(n) + "return 1"}).Duration

	src := "let total = 0\nfor (let i = 0; i < 10; i++) {\n" + spin(n) + "total += approval.request({message: 'step ' + i})\n}\nreturn total"
	resolutions := make([]json.RawMessage, 10)
	for i := range resolutions {
		resolutions[i] = json.RawMessage(`1`)
	}
	req := Request{Source: src, Capabilities: []string{"approval"}}
	budget := 4 * x // runs 1 and 2 fit (1 and 2 spins); run 3 (3 spins) does not
	start := time.Now()
	res, requests := Resolve(context.Background(), runner, req, resolutions, budget)
	took := time.Since(start)
	if res.Err == nil || res.Err.Code != CodeTimeout {
		t.Fatalf("got %q %+v after %d requests; want %s", res.Output, res.Err, len(requests), CodeTimeout)
	}
	if took > 20*x {
		t.Errorf("Resolve took %s for a budget of %s (one spin %s)", took, budget, x)
	}
	if res.Duration < budget/2 || res.Duration > budget+20*x {
		t.Errorf("Duration %s, want the runs' sum, about the budget of %s", res.Duration, budget)
	}
	if len(requests) < 1 {
		t.Errorf("%d requests, want the replays to have gone past the first", len(requests))
	}

	// With a budget for them, every request is answered.
	res, requests = Resolve(context.Background(), runner, req, resolutions, time.Minute)
	if res.Err != nil || res.Output != "10" || len(requests) != 10 {
		t.Errorf("within the budget: %q %+v, %d requests; want 10 after 10 requests", res.Output, res.Err, len(requests))
	}
}

func TestApprovalMoreThanOnce(t *testing.T) {
	src := `const a = approval.request({message: 'one'})
const b = approval.request({message: 'two', data: a})
return a + '+' + b`
	grants := []string{"approval"}
	r1 := resume(t, src, nil, grants, nil, nil)
	if r1.Suspended == nil || string(r1.Suspended.Request) != `{"message":"one"}` {
		t.Fatalf("first: %+v %+v", r1.Err, r1.Suspended)
	}
	r2 := resume(t, src, nil, grants, r1.Suspended.Journal, json.RawMessage(`"A"`))
	if r2.Suspended == nil || string(r2.Suspended.Request) != `{"message":"two","data":"A"}` {
		t.Fatalf("second: %+v %+v", r2.Err, r2.Suspended)
	}
	r3 := resume(t, src, nil, grants, r2.Suspended.Journal, json.RawMessage(`"B"`))
	if r3.Err != nil || r3.Output != "A+B" {
		t.Fatalf("third: %q %+v", r3.Output, r3.Err)
	}
}

func TestReplayThatDivergesFails(t *testing.T) {
	host := &postHost{}
	grants := []string{"api", "kv", "approval"}
	first := resume(t, approvalScript, host, grants, nil, nil)
	if first.Suspended == nil {
		t.Fatalf("first run: %+v", first.Err)
	}
	for name, src := range map[string]string{
		"other arguments": strings.Replace(approvalScript, "{amount: 10})", "{amount: 99})", 1),
		"another call":    strings.Replace(approvalScript, "api.post('crm', '/refunds'", "kv.get('crm', '/refunds'", 1),
		"no time read":    strings.Replace(approvalScript, "const t = Date.now()", "const t = 1", 1),
		"ends early":      "return 'short'",
		// The suspended run went past this line: a throw there is the
		// replay taking another way, not the script's own failure.
		"throws early": "if (!capabilities.includes('nothing')) throw new Error('boom before approval')\n" + approvalScript,
	} {
		res := resume(t, src, host, grants, first.Suspended.Journal, json.RawMessage(`{"ok":true}`))
		if res.Err == nil || res.Err.Code != CodeContinuationDiverged || !strings.Contains(res.Err.Message, "The continuation is used: run the step again") {
			t.Errorf("%s: %q %+v, want CONTINUATION_DIVERGED saying what to do", name, res.Output, res.Err)
		}
	}
	// A throw after the replayed part is the script's own failure.
	afterwards := strings.Replace(approvalScript, "const second =", "throw new Error('after')\nconst second =", 1)
	res := resume(t, afterwards, host, grants, first.Suspended.Journal, json.RawMessage(`{"ok":true}`))
	if res.Err == nil || res.Err.Code != CodeScriptError || !strings.Contains(res.Err.Message, "after") {
		t.Errorf("a throw after the replay: %+v, want SCRIPT_ERROR", res.Err)
	}
	if host.n.Load() != 1 {
		t.Errorf("a diverging replay reached the host: %d calls", host.n.Load())
	}
}

func TestApprovalNeedsItsCapability(t *testing.T) {
	res := resume(t, "\nreturn approval.request({message: 'x'})", nil, nil, nil, nil)
	if res.Err == nil || res.Err.Code != CodeCapabilityDenied || res.Err.Message != "Approval capability is not enabled" || res.Err.Line != 2 {
		t.Fatalf("%+v", res.Err)
	}
	// A run without approval keeps no journal: time is live.
	res = resume(t, "return Date.now() > 0", nil, []string{"api"}, nil, nil)
	if res.Output != "true" || res.Suspended != nil {
		t.Fatalf("%+v", res)
	}
}

// A run that may suspend records its time readings, but never more than a
// continuation holds: a loop on Date.now() neither exhausts memory nor
// fails, unless it then asks for approval.
func TestJournalStopsGrowingAtItsCap(t *testing.T) {
	grants := []string{"approval"}
	// Enough clock reads to pass MaxJournalBytes however fast the machine
	// is (a time-bound loop may read the clock too few times under -race).
	loop := fmt.Sprintf("let n = 0; for (let i = 0; i < %d; i++) if (Date.now() > 0) n++\n", 2*MaxJournalBytes/16)
	res := resume(t, loop+"return n > 0 ? 'looped' : 'no'", nil, grants, nil, nil)
	if res.Err != nil || res.Output != "looped" {
		t.Fatalf("a time loop in a run that may suspend: %q %+v", res.Output, res.Err)
	}
	res = resume(t, loop+"approval.request()\nreturn 'no'", nil, grants, nil, nil)
	if res.Err == nil || res.Err.Code != CodeScriptError || !strings.Contains(res.Err.Message, "continuation can hold") || res.Suspended != nil || res.Err.Line != 2 {
		t.Fatalf("approval after the journal is full: %+v, suspended %v", res.Err, res.Suspended)
	}
	// Resolutions that fill the journal are named as the cause, not the
	// script's calls.
	two := "const a = approval.request('one')\nconst b = approval.request('two')\nreturn a.length + b"
	r1 := resume(t, two, nil, grants, nil, nil)
	if r1.Suspended == nil {
		t.Fatalf("first approval: %+v", r1.Err)
	}
	r2 := resume(t, two, nil, grants, r1.Suspended.Journal, json.RawMessage(`"`+strings.Repeat("x", 800000)+`"`))
	if r2.Err == nil || !strings.Contains(r2.Err.Message, "the resolutions of its earlier approvals take 800002 bytes") || r2.Err.Line != 2 {
		t.Fatalf("a huge resolution, then approval again: %+v", r2.Err)
	}
	// A request too large for a journal is named as the cause.
	res = resume(t, "\napproval.request({message: 'x'.repeat(800000)})", nil, grants, nil, nil)
	if res.Err == nil || !strings.HasPrefix(res.Err.Message, "the approval request is 800014 bytes") || res.Err.Line != 2 || res.Err.Column != 17 {
		t.Fatalf("a huge request: %+v", res.Err)
	}
}

// approval.request takes {message, data}, a message alone, or nothing:
// what the engine shows the person who approves.
func TestApprovalRequestShape(t *testing.T) {
	for src, want := range map[string]string{
		"approval.request(1)":                 "got a number",
		"approval.request([1])":               "got an array",
		"approval.request(true)":              "got a boolean",
		"approval.request({message: 1})":      "message must be a string, got a number",
		"approval.request({message: {a: 1}})": "message must be a string, got an object",
		"approval.request(new Date(0))":       "got a Date, whose JSON is a string",
		"approval.request({toJSON: () => 5})": "got an object, whose JSON is a number",
		"approval.request(new Number(5))":     "got a Number, whose JSON is a number",
	} {
		res := resume(t, src, nil, []string{"approval"}, nil, nil)
		if res.Err == nil || res.Err.Message != "TypeError: approval.request takes {message, data}, a message, or nothing: "+want || res.Err.Line != 1 {
			t.Errorf("%s: %+v, want %q", src, res.Err, want)
		}
	}
	for src, want := range map[string]string{
		"approval.request()":                                   "null",
		"approval.request(null)":                               "null",
		"approval.request({})":                                 "{}",
		"approval.request('Reembolsar 10?')":                   `{"message":"Reembolsar 10?"}`,
		"approval.request(new String('Reembolsar?'))":          `{"message":"Reembolsar?"}`,
		"approval.request({message: 'ok?', data: {n: [1]}})":   `{"message":"ok?","data":{"n":[1]}}`,
		"approval.request({kind: 'approval', message: 'ok?'})": `{"kind":"approval","message":"ok?"}`,
	} {
		if res := resume(t, src, nil, []string{"approval"}, nil, nil); res.Suspended == nil || string(res.Suspended.Request) != want {
			t.Errorf("%s: %+v %+v, want it suspended with %s", src, res.Err, res.Suspended, want)
		}
	}
}

// Host calls and approval requests holding <, > and & replay: the journal
// keeps them as the script wrote them (json.Marshal wrote \u0026, and the
// replay compared that text with the script's and diverged), and a
// journal written that way still replays. They take one byte each
// against the journal's cap, not six.
func TestJournalKeepsHTMLCharacters(t *testing.T) {
	src := `const a = api.post('crm', '/x', {q: 'a & b <c>'})
const ok = approval.request({message: 'R$ 10 & frete <grátis>?'})
return ok.ok + ' ' + a.n`
	grants := []string{"api", "approval"}
	first := resume(t, src, &postHost{}, grants, nil, nil)
	if first.Suspended == nil {
		t.Fatalf("first run: %+v", first.Err)
	}
	journal := string(first.Suspended.Journal)
	if !strings.Contains(journal, `"a & b <c>"`) || !strings.Contains(journal, `frete <grátis>?`) {
		t.Errorf("journal %s: want the script's text as written", journal)
	}
	escaped := strings.NewReplacer("&", `\u0026`, "<", `\u003c`, ">", `\u003e`).Replace(journal)
	for _, j := range []string{journal, escaped} {
		got := resume(t, src, &postHost{}, grants, json.RawMessage(j), json.RawMessage(`{"ok":true}`))
		if got.Err != nil || got.Output != "true 1" {
			t.Errorf("resume of %s: %q %+v", j, got.Output, got.Err)
		}
	}
	// 140,000 < in the request: 140 KB of journal, under the cap.
	big := resume(t, `return approval.request({message: '<'.repeat(140000)})`, nil, []string{"approval"}, nil, nil)
	if big.Suspended == nil || len(big.Suspended.Journal) > MaxJournalBytes {
		t.Errorf("a 140 KB request of <: %+v, journal %d bytes", big.Err, journalLen(big))
	}
}

func journalLen(r Result) int {
	if r.Suspended == nil {
		return 0
	}
	return len(r.Suspended.Journal)
}

// A built-in that calls approval.request or a host function itself
// (items.map(approval.request), a bound Reflect.apply) stops at the first
// request, as a script's own call does: the VM sees the stop only at its
// next instruction, and the built-in's further calls asked for approvals
// no one was shown, ran host calls before the approval (and again at the
// resume), or threw over the suspension.
func TestBuiltinsStopAtTheFirstApproval(t *testing.T) {
	grants := []string{"api", "approval"}
	src := `const answers = ['Refund 10?', 'Refund 20?', 'Refund 5000?'].map(approval.request)
return answers.map(a => a.ok).join(',')`
	var journal json.RawMessage
	var resolution json.RawMessage
	for i, want := range []string{"Refund 10?", "Refund 20?", "Refund 5000?"} {
		res := resume(t, src, &postHost{}, grants, journal, resolution)
		if res.Suspended == nil || string(res.Suspended.Request) != `{"message":"`+want+`"}` {
			t.Fatalf("run %d: %+v, request %v; want a suspension asking %q", i+1, res.Err, res.Suspended, want)
		}
		journal, resolution = res.Suspended.Journal, json.RawMessage(fmt.Sprintf(`{"ok":%d}`, i+1))
	}
	if res := resume(t, src, &postHost{}, grants, journal, resolution); res.Err != nil || res.Output != "1,2,3" {
		t.Errorf("last resume: %q %+v, want 1,2,3", res.Output, res.Err)
	}

	host := &postHost{}
	src = `const post = api.post.bind(null, 'crm', '/refunds')
const steps = [approval.request.bind(null, 'Refund 5000?'), post.bind(null, {amount: 5000}), Date.now, Math.random]
return JSON.stringify(steps.map(Reflect.apply.bind(null)).slice(0, 2))`
	first := resume(t, src, host, grants, nil, nil)
	if first.Suspended == nil || host.n.Load() != 0 || strings.Count(string(first.Suspended.Journal), `"k":`) != 1 {
		t.Fatalf("first run: %+v, %d host calls, journal %s; want a suspension before any host call", first.Err, host.n.Load(), journalOf(first))
	}
	second := resume(t, src, host, grants, first.Suspended.Journal, json.RawMessage(`{"ok":true}`))
	if second.Err != nil || second.Output != `[{"ok":true},{"n":1}]` || host.n.Load() != 1 {
		t.Errorf("resume: %q %+v after %d host calls, want the post once", second.Output, second.Err, host.n.Load())
	}

	// A call that would throw after the request does not hide the suspension.
	if res := resume(t, `return ['q1', 5].map(approval.request)`, nil, []string{"approval"}, nil, nil); res.Suspended == nil {
		t.Errorf("['q1', 5].map(approval.request): %+v, want a suspension on q1", res.Err)
	}
}

// The capabilities global lists the grants in one order, so a resume that
// asks for the same grants in another order replays the same run.
func TestCapabilitiesListIsSorted(t *testing.T) {
	src := `const first = capabilities[0]
api.post('c', '/p', {caps: capabilities})
approval.request('x')
return first + ' ' + capabilities.join(',')`
	first := resume(t, src, &postHost{}, []string{"approval", "api"}, nil, nil)
	if first.Suspended == nil {
		t.Fatalf("first run: %+v", first.Err)
	}
	res := resume(t, src, &postHost{}, []string{"api", "approval"}, first.Suspended.Journal, json.RawMessage(`{}`))
	if res.Err != nil || res.Output != "api api,approval" {
		t.Errorf("resume with the grants in another order: %q %+v", res.Output, res.Err)
	}
}

func journalOf(r Result) string {
	if r.Suspended == nil {
		return ""
	}
	return string(r.Suspended.Journal)
}

// A thrown value whose message getter asks for approval suspends the run,
// as any other approval does, and the resumed run fails with the message
// the resolution made; it was reported as SCRIPT_TIMEOUT at once (a
// black-box probe). Its getter runs while the uncaught error is read.
func TestApprovalWhileAnErrorIsRead(t *testing.T) {
	for _, src := range []string{
		"throw {get message() { return 'recusado: ' + approval.request({message: 'ok?'}).why }}",
		"throw {toString() { return 'recusado: ' + approval.request({message: 'ok?'}).why }}",
		"const e = new Error('x')\nObject.defineProperty(e, 'message', {get() { return 'recusado: ' + approval.request({message: 'ok?'}).why }})\nthrow e",
	} {
		t.Run(src, func(t *testing.T) {
			grants := []string{"approval"}
			first := resume(t, src, &postHost{}, grants, nil, nil)
			if first.Err != nil || first.Suspended == nil || string(first.Suspended.Request) != `{"message":"ok?"}` {
				t.Fatalf("first run: %+v, suspended %+v, want it suspended", first.Err, first.Suspended)
			}
			second := resume(t, src, &postHost{}, grants, first.Suspended.Journal, json.RawMessage(`{"why":"caro demais"}`))
			if second.Err == nil || second.Err.Code != CodeScriptError || !strings.Contains(second.Err.Message, "recusado: caro demais") || second.Suspended != nil {
				t.Fatalf("resumed: %+v, suspended %+v, want SCRIPT_ERROR 'recusado: caro demais'", second.Err, second.Suspended)
			}
		})
	}
}
