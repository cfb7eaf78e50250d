package workerpool

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// countingHost answers every host call with answer, counting them.
type countingHost struct {
	calls  atomic.Int64
	answer func(ctx context.Context, c sandbox.HostCall) sandbox.HostReply
}

func (h *countingHost) Call(ctx context.Context, c sandbox.HostCall) sandbox.HostReply {
	h.calls.Add(1)
	return h.answer(ctx, c)
}

func echoHost() *countingHost {
	return &countingHost{answer: func(_ context.Context, c sandbox.HostCall) sandbox.HostReply {
		b, _ := json.Marshal(map[string]any{"status": 200, "method": c.Method, "args": c.Args})
		return sandbox.HostReply{Value: b}
	}}
}

// TestHostCallsCrossThePipes: a worker that reaches a host function sends
// a host-call frame to the parent and blocks for the answer; the parent
// runs the request's host and answers under the job's id.
func TestHostCallsCrossThePipes(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1, Timeout: 5 * time.Second}})
	host := echoHost()
	res := p.Run(context.Background(), sandbox.Request{
		Source: `console.log('calling', capabilities)
			const a = api.get('crm', '/customers/' + id)
			const b = kv.set('k', {n: 1})
			return [a.status, a.method, a.args[1], b.args[1].n].join(':')`,
		Inputs:       []sandbox.Input{{Name: "id", Value: "42"}},
		Capabilities: []string{"api", "kv"},
		Host:         host,
	})
	if res.Err != nil || res.Output != "200:get:/customers/42:1" {
		t.Fatalf("result %q, %+v", res.Output, res.Err)
	}
	if n := host.calls.Load(); n != 2 {
		t.Errorf("the host answered %d calls, want 2", n)
	}
	if len(res.Logs) != 1 || res.Logs[0].Message != `calling ["api","kv"]` || res.Logs[0].Line != 1 {
		t.Errorf("logs %+v", res.Logs)
	}
	// Not granted: denied in the sandbox, the host never called.
	res = p.Run(context.Background(), sandbox.Request{Source: "\nreturn api.get('crm', '/x')", Host: host})
	if res.Err == nil || res.Err.Code != sandbox.CodeCapabilityDenied || res.Err.Line != 2 || host.calls.Load() != 2 {
		t.Errorf("not granted: %+v after %d host calls", res.Err, host.calls.Load())
	}
	// A structured failure keeps the author's code through the pipe.
	res = p.Run(context.Background(), sandbox.Request{Source: "return {success: false, error: {code: 'NO_CUSTOMER', message: 'não achei'}}"})
	if res.Err == nil || res.Err.Reason != "NO_CUSTOMER" || res.Err.Message != "não achei" {
		t.Errorf("structured failure: %+v", res.Err)
	}
	if p.Restarts() != 0 {
		t.Errorf("%d workers replaced", p.Restarts())
	}
}

// TestHostCallPendingAtTheDeadline: a host that hangs ends the job with
// SCRIPT_TIMEOUT at the deadline (plus the kill margin at most), at the
// line of the pending call whichever side sees the deadline first (the
// parent's answer or the worker's interrupt: a race, so several jobs), and
// the worker is free for the next job.
func TestHostCallPendingAtTheDeadline(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1, Timeout: 300 * time.Millisecond}})
	hanging := &countingHost{answer: func(ctx context.Context, _ sandbox.HostCall) sandbox.HostReply {
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // a late answer, dropped
		return sandbox.HostReply{Value: json.RawMessage(`"late"`)}
	}}
	for range 4 {
		start := time.Now()
		res := p.Run(context.Background(), sandbox.Request{Source: "const path = '/slow'\nreturn api.get('crm', path)", Capabilities: []string{"api"}, Host: hanging})
		took := time.Since(start)
		if res.Err == nil || res.Err.Code != sandbox.CodeTimeout {
			t.Fatalf("result %q, %+v: want SCRIPT_TIMEOUT", res.Output, res.Err)
		}
		if res.Err.Line != 2 || res.Err.Column == 0 {
			t.Errorf("timed out at %d:%d, want the pending call's line 2", res.Err.Line, res.Err.Column)
		}
		if took > 300*time.Millisecond+time.Second {
			t.Errorf("the job took %s, over its deadline plus 1s", took)
		}
	}
	res := p.Run(context.Background(), sandbox.Request{Source: "return 'next'"})
	if res.Err != nil || res.Output != "next" {
		t.Errorf("the next job: %q, %+v", res.Output, res.Err)
	}
}

// TestHostCallCaps: the parent meters a job's host calls (the trusted
// side): call N+1 and answers past the byte cap are HOST_CALL_LIMIT.
func TestHostCallCaps(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1, Timeout: 5 * time.Second, MaxHostCalls: 5, MaxHostBytes: 200 << 10}})
	host := echoHost()
	res := p.Run(context.Background(), sandbox.Request{Source: "for (let i = 0; i < 6; i++) kv.get('k' + i)\nreturn 'done'",
		Capabilities: []string{"kv"}, Host: host})
	if res.Err == nil || res.Err.Code != sandbox.CodeHostCallLimit || res.Err.Line != 1 {
		t.Errorf("call 6 of 5: %+v", res.Err)
	}
	big := &countingHost{answer: func(context.Context, sandbox.HostCall) sandbox.HostReply {
		return sandbox.HostReply{Value: json.RawMessage(`"` + strings.Repeat("x", 150<<10) + `"`)}
	}}
	// The answer that passes the cap is delivered (the call was made); the
	// call after it is refused before it reaches the host.
	res = p.Run(context.Background(), sandbox.Request{Source: "const a = kv.get('a')\nconst b = kv.get('b')\nconst c = kv.get('c')\nreturn a.length",
		Capabilities: []string{"kv"}, Host: big})
	if res.Err == nil || res.Err.Code != sandbox.CodeHostCallLimit || res.Err.Line != 3 || big.calls.Load() != 2 {
		t.Errorf("answers over 200 KiB: %+v after %d calls, want HOST_CALL_LIMIT at line 3 after 2", res.Err, big.calls.Load())
	}
	res = p.Run(context.Background(), sandbox.Request{Source: "return kv.get('a').length", Capabilities: []string{"kv"}, Host: big})
	if res.Err != nil || res.Output != "153600" {
		t.Errorf("one answer of 150 KiB: %q, %+v", res.Output, res.Err)
	}
	// One answer over the whole cap is refused on the trusted side, not
	// sent to a worker that reads no larger reply.
	huge := &countingHost{answer: func(context.Context, sandbox.HostCall) sandbox.HostReply {
		return sandbox.HostReply{Value: json.RawMessage(`"` + strings.Repeat("x", 300<<10) + `"`)}
	}}
	res = p.Run(context.Background(), sandbox.Request{Source: "return kv.get('a').length", Capabilities: []string{"kv"}, Host: huge})
	if res.Err == nil || res.Err.Code != sandbox.CodeHostCallLimit || !strings.Contains(res.Err.Message, "the call was made") {
		t.Errorf("one answer over the cap: %+v, want HOST_CALL_LIMIT (not a crash)", res.Err)
	}
}

// TestHugeConsoleLineStaysInMemory: a line far over the log cap is cut
// inside the VM, so logging a 12 MB string does not take the worker's
// memory budget.
func TestHugeConsoleLineStaysInMemory(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1, Timeout: 5 * time.Second}})
	res := p.Run(context.Background(), sandbox.Request{Source: "const s = 'é'.repeat(6e6)\nconsole.log(s)\nconsole.log([s])\nreturn s.length"})
	if res.Err != nil || res.Output != "6000000" || len(res.Logs) != 1 || !res.LogsTruncated {
		t.Errorf("%q %+v, %d logs (truncated %v)", res.Output, res.Err, len(res.Logs), res.LogsTruncated)
	}
}

// TestSuspendAndResumeThroughThePipes: a run that asks for approval comes
// back suspended with its request and journal; the same source resumed
// with them replays without calling the host again.
func TestSuspendAndResumeThroughThePipes(t *testing.T) {
	p := newTestPool(t, Config{Limits: sandbox.Limits{MaxParallel: 1, Timeout: 5 * time.Second}})
	host := echoHost()
	src := "const a = api.post('crm', '/x', {n: 1})\nconst ok = approval.request({message: 'pode?'})\nreturn a.args[1] + ':' + ok"
	req := sandbox.Request{Source: src, Capabilities: []string{"api", "approval"}, Host: host}
	first := p.Run(context.Background(), req)
	if first.Err != nil || first.Suspended == nil || string(first.Suspended.Request) != `{"message":"pode?"}` {
		t.Fatalf("first: %+v %+v", first.Err, first.Suspended)
	}
	req.Journal, req.Resolution = first.Suspended.Journal, json.RawMessage(`"sim"`)
	second := p.Run(context.Background(), req)
	if second.Err != nil || second.Output != "/x:sim" || host.calls.Load() != 1 {
		t.Fatalf("resume: %q %+v after %d host calls", second.Output, second.Err, host.calls.Load())
	}
}
