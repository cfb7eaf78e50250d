package capabilities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/capabilities/httpapi"
	"github.com/flowscript/flowscript/internal/capabilities/sessionkv"
	"github.com/flowscript/flowscript/internal/jsonkind"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// Capabilities gives jobs their host functions: it implements the
// consumer's HostProvider. The zero value grants nothing.
type Capabilities struct {
	policy *Policy
	api    *httpapi.Client // nil: no connector
	kv     sessionkv.Store // nil: no store
}

// New returns the host functions of policy (nil: nothing is granted), with
// the api client of its connectors and the session store kv (nil: kv calls
// are refused).
func New(policy *Policy, api *httpapi.Client, kv sessionkv.Store) *Capabilities {
	return &Capabilities{policy: policy, api: api, kv: kv}
}

// HostFor is the job's grants (what it asks for that its tenant may use)
// and the host that answers their calls, scoped to the job's tenant and
// session.
func (c *Capabilities) HostFor(job *flowjob.Job) ([]string, sandbox.Host) {
	if c == nil || job == nil {
		return nil, nil
	}
	grants := c.policy.Grant(job.TenantID, job.Capabilities)
	if len(grants) == 0 {
		return nil, nil
	}
	return grants, &jobHost{c: c, grants: grants, scope: sessionkv.Scope{Tenant: job.TenantID, Session: job.SessionID}}
}

// jobHost answers one job's host calls.
type jobHost struct {
	c      *Capabilities
	grants []string
	scope  sessionkv.Scope
}

// Call decodes the call's arguments (JSON from the sandbox, checked here
// again), runs it, and encodes the answer. The sandbox checked the grant;
// the host checks it again.
func (h *jobHost) Call(ctx context.Context, call sandbox.HostCall) sandbox.HostReply {
	if !slices.Contains(h.grants, call.Capability) {
		return sandbox.Denied(call.Capability)
	}
	var args []json.RawMessage
	if err := json.Unmarshal(call.Args, &args); err != nil {
		return typeError("%s.%s: the arguments are not a JSON array", call.Capability, call.Method)
	}
	switch call.Capability {
	case flowjob.CapabilityAPI:
		return h.api(ctx, call.Method, args)
	case flowjob.CapabilityKV:
		return h.kv(ctx, call.Method, args)
	}
	return sandbox.Denied(call.Capability)
}

// apiOptions are the last argument of every api function.
type apiOptions struct {
	Headers map[string]string `json:"headers"`
	Query   map[string]string `json:"query"`
}

func (h *jobHost) api(ctx context.Context, method string, args []json.RawMessage) sandbox.HostReply {
	withBody := map[string]bool{"post": true, "put": true, "patch": true}
	httpMethod := map[string]string{"get": "GET", "delete": "DELETE", "post": "POST", "put": "PUT", "patch": "PATCH"}[method]
	if httpMethod == "" {
		return typeError("api.%s is not a function", method)
	}
	name := "api." + method
	var req httpapi.Request
	req.Method = httpMethod
	if err := str(args, 0, &req.Connector); err != nil {
		return typeError("%s: the connector (argument 1) %v", name, err)
	}
	if err := str(args, 1, &req.Path); err != nil {
		return typeError("%s: the path (argument 2) %v", name, err)
	}
	optionsAt := 2
	if withBody[method] {
		if b := arg(args, 2); !isNull(b) {
			req.Body = b
		}
		optionsAt = 3
	}
	var opts apiOptions
	if o := arg(args, optionsAt); !isNull(o) {
		if err := strictJSON(o, &opts); err != nil {
			return typeError("%s: options (argument %d) must be {headers?, query?} with string values: %v", name, optionsAt+1, err)
		}
	}
	req.Headers, req.Query = opts.Headers, opts.Query
	if h.c.api == nil {
		return sandbox.HostReply{Err: &sandbox.HostError{Code: sandbox.CodeCapabilityDenied, Name: "CapabilityDenied",
			Message: fmt.Sprintf("connector %q is not defined: the executor has no connectors", req.Connector)}}
	}
	resp, err := h.c.api.Do(ctx, h.scope.Tenant, req)
	var denied *httpapi.DeniedError
	switch {
	case errors.As(err, &denied):
		return sandbox.HostReply{Err: &sandbox.HostError{Code: sandbox.CodeCapabilityDenied, Name: "CapabilityDenied",
			Message: h.c.api.Redact(denied.Message)}}
	case err != nil && ctx.Err() != nil:
		return sandbox.HostReply{Err: &sandbox.HostError{Code: sandbox.CodeTimeout, Name: "TimeoutError", Message: sandbox.MsgTimeout}}
	case err != nil:
		return sandbox.HostReply{Err: &sandbox.HostError{Name: "NetworkError", Message: h.c.api.Redact(err.Error())}}
	}
	return encode(resp)
}

// kvOptions is kv.set's third argument.
type kvOptions struct {
	TTLSeconds float64 `json:"ttlSeconds"`
}

func (h *jobHost) kv(ctx context.Context, method string, args []json.RawMessage) sandbox.HostReply {
	name := "kv." + method
	var key string
	if err := str(args, 0, &key); err != nil {
		return typeError("%s: the key (argument 1) %v", name, err)
	}
	if h.c.kv == nil {
		return sandbox.HostReply{Err: &sandbox.HostError{Code: sandbox.CodeCapabilityDenied, Name: "CapabilityDenied",
			Message: "kv is not available on this executor"}}
	}
	var err error
	switch method {
	case "get":
		value, found, gerr := h.c.kv.Get(ctx, h.scope, key)
		if gerr == nil {
			if !found {
				return sandbox.HostReply{}
			}
			return sandbox.HostReply{Value: value}
		}
		err = gerr
	case "set":
		value := arg(args, 1)
		if value == nil {
			value = json.RawMessage("null")
		}
		var opts kvOptions
		if o := arg(args, 2); !isNull(o) {
			if oerr := strictJSON(o, &opts); oerr != nil {
				return typeError("%s: options (argument 3) must be {ttlSeconds?}: %v", name, oerr)
			}
			var given struct {
				TTLSeconds json.RawMessage `json:"ttlSeconds"`
			}
			if json.Unmarshal(o, &given) == nil && string(given.TTLSeconds) == "null" {
				return typeError("%s: options (argument 3): ttlSeconds must be a number of seconds, got null, NaN or Infinity (leave it out to keep the value as long as any, KV_TTL)", name)
			}
			if opts.TTLSeconds < 0 {
				return typeError("%s: options (argument 3): ttlSeconds must be 0 or more seconds (0 or none: as long as any value is kept, KV_TTL), got %s",
					name, strconv.FormatFloat(opts.TTLSeconds, 'g', -1, 64))
			}
		}
		ttl := time.Duration(math.MaxInt64) // past it a conversion wraps; the bucket's TTL caps it anyway
		if opts.TTLSeconds < ttl.Seconds() {
			ttl = time.Duration(opts.TTLSeconds * float64(time.Second))
		}
		err = h.c.kv.Set(ctx, h.scope, key, value, ttl)
	case "delete":
		err = h.c.kv.Delete(ctx, h.scope, key)
	default:
		return typeError("kv.%s is not a function", method)
	}
	var limit *sessionkv.LimitError
	switch {
	case err == nil:
		return sandbox.HostReply{}
	case errors.As(err, &limit):
		return sandbox.HostReply{Err: &sandbox.HostError{Name: "KvLimitError", Message: limit.Message}}
	case ctx.Err() != nil:
		return sandbox.HostReply{Err: &sandbox.HostError{Code: sandbox.CodeTimeout, Name: "TimeoutError", Message: sandbox.MsgTimeout}}
	}
	return sandbox.HostReply{Err: &sandbox.HostError{Name: "KvError", Message: name + " failed: the session store is unavailable; retry later"}}
}

// arg is args[i], nil when absent.
func arg(args []json.RawMessage, i int) json.RawMessage {
	if i < len(args) {
		return args[i]
	}
	return nil
}

func isNull(raw json.RawMessage) bool {
	return raw == nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// str decodes args[i] as a string.
func str(args []json.RawMessage, i int, dst *string) error {
	raw := arg(args, i)
	if isNull(raw) {
		return errors.New("is required")
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return errors.New("must be a string")
	}
	return nil
}

// strictJSON decodes raw into dst, refusing unknown fields.
// strictJSON decodes a script's options into dst, refusing unknown
// members. Its error is written for the script's author: the member and
// the JSON types, never a Go type.
func strictJSON(raw json.RawMessage, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typ) && typ.Field == "":
		return fmt.Errorf("got %s", jsonkind.Got(typ.Value))
	case errors.As(err, &typ):
		return fmt.Errorf("%s: want %s, got %s", typ.Field, jsonkind.Of(typ.Type), jsonkind.Got(typ.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("it has no member %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return errors.New("it is not readable")
}

func typeError(format string, args ...any) sandbox.HostReply {
	return sandbox.HostReply{Err: &sandbox.HostError{Name: "TypeError", Message: fmt.Sprintf(format, args...)}}
}

func encode(v any) sandbox.HostReply {
	b, err := json.Marshal(v)
	if err != nil {
		return sandbox.HostReply{Err: &sandbox.HostError{Name: "Error", Message: "encoding the host's answer failed"}}
	}
	return sandbox.HostReply{Value: b}
}
