package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// HostCall is a script's call of a granted host function (DESIGN.md §9),
// as it crosses the boundary: names and JSON text, nothing live.
type HostCall struct {
	// Capability is the host object: "api" or "kv".
	Capability string
	// Method is the function: get, post, put, patch, delete; set.
	Method string
	// Args is the JSON array of the call's arguments, serialized inside the
	// sandbox (under the script's deadline) with the JSON.stringify the
	// runtime had before the script ran.
	Args json.RawMessage
}

// HostReply is the host's answer: a JSON value (nil: undefined), or Err.
type HostReply struct {
	Value json.RawMessage
	Err   *HostError
}

// HostError is a failed host call, thrown in the script at the call's line
// as an Error whose name is Name and whose code property is Code (or
// Name's when Code is empty). With a Code (CAPABILITY_DENIED,
// HOST_CALL_LIMIT, SCRIPT_TIMEOUT) the error, left uncaught, fails the job
// with that code; without one (a network failure) it is an ordinary
// exception: uncaught, the job fails with SCRIPT_ERROR.
type HostError struct {
	Code    Code   `json:"code,omitempty"`
	Name    string `json:"name,omitempty"`
	Message string `json:"message"`
}

func (e *HostError) Error() string { return e.Message }

// Host answers a run's host calls. It is trusted code outside the sandbox:
// the executor's dispatcher behind the worker pool's parent, or, for an
// in-process run, the caller's. ctx ends at the run's deadline: a call
// still pending then must return (its answer is dropped).
type Host interface {
	Call(ctx context.Context, call HostCall) HostReply
}

// HostFunc adapts a function to Host.
type HostFunc func(ctx context.Context, call HostCall) HostReply

// Call runs f.
func (f HostFunc) Call(ctx context.Context, call HostCall) HostReply { return f(ctx, call) }

// Denied is the reply to a call of a capability that is not granted, in
// the seed's words ("Api capability is not enabled").
func Denied(capability string) HostReply {
	name := capability
	if name != "" {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	return HostReply{Err: &HostError{Code: CodeCapabilityDenied, Name: "CapabilityDenied",
		Message: name + " capability is not enabled"}}
}

// MeterHost wraps h with a run's caps: at most l.MaxHostCalls calls and
// l.MaxHostBytes of JSON each way. A call over a cap is answered
// HOST_CALL_LIMIT without reaching h. The size of an answer is known only
// once h carried the call out, so the answer that passes the answers' cap
// is still delivered (the call happened: saying it failed would invite a
// retry of a side effect), and the calls after it are refused; an answer
// larger than the whole cap is not delivered (HOST_CALL_LIMIT, saying the
// call was made). Every side
// of the boundary that answers host calls meters them with it: the worker
// pool's parent (the trusted side) and an in-process run.
func MeterHost(h Host, l Limits) Host {
	return &meter{host: h, limits: l}
}

type meter struct {
	host   Host
	limits Limits

	mu                sync.Mutex
	calls             int
	bytesIn, bytesOut int
}

func (m *meter) Call(ctx context.Context, call HostCall) HostReply {
	// A call refused here was not made: it takes nothing of the budget, so
	// a smaller call after it may still go.
	m.mu.Lock()
	calls, in, out := m.calls+1, m.bytesIn+len(call.Args), m.bytesOut
	refused := calls > m.limits.MaxHostCalls || in > m.limits.MaxHostBytes || out > m.limits.MaxHostBytes
	if !refused {
		m.calls, m.bytesIn = calls, in
	}
	m.mu.Unlock()
	switch {
	case calls > m.limits.MaxHostCalls:
		return limitReply(fmt.Sprintf("more than %d host calls in one run (SANDBOX_MAX_HOST_CALLS): this call was not made", m.limits.MaxHostCalls))
	case in > m.limits.MaxHostBytes:
		return limitReply(fmt.Sprintf("this call's arguments (%d bytes) would take the host calls' arguments past %d bytes in one run (SANDBOX_MAX_HOST_BYTES): this call was not made", len(call.Args), m.limits.MaxHostBytes))
	case out > m.limits.MaxHostBytes:
		return limitReply(fmt.Sprintf("the host calls' answers passed %d bytes in one run (SANDBOX_MAX_HOST_BYTES): this call was not made", m.limits.MaxHostBytes))
	}
	if m.host == nil {
		return Denied(call.Capability)
	}
	reply := m.host.Call(ctx, call)
	m.mu.Lock()
	m.bytesOut += len(reply.Value)
	m.mu.Unlock()
	if len(reply.Value) > m.limits.MaxHostBytes {
		// One answer over the whole cap is never delivered: a worker reads
		// no larger host reply.
		return limitReply(fmt.Sprintf("the call was made, but its answer of %d bytes is over SANDBOX_MAX_HOST_BYTES (%d)", len(reply.Value), m.limits.MaxHostBytes))
	}
	return reply
}

func limitReply(msg string) HostReply {
	return HostReply{Err: &HostError{Code: CodeHostCallLimit, Name: "HostCallLimit", Message: msg}}
}
