package telemetry

import (
	"context"
	"strings"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/propagation"
)

// propagator is the W3C trace context and baggage: the messaging contract
// (DESIGN.md §5) fixes it, so Inject and Extract use it whether or not
// Setup ran. Setup also installs it as the global propagator.
var propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(
	propagation.TraceContext{}, propagation.Baggage{},
)

// HeaderCarrier adapts nats.Header to propagation.TextMapCarrier. NATS
// header keys are case-sensitive and other clients write the W3C keys in
// lowercase (traceparent, tracestate), so Get matches a key in any case and
// Set writes lowercase, replacing any other spelling of the same key.
// http.Header's carrier would canonicalize to Traceparent and miss them.
type HeaderCarrier nats.Header

var _ propagation.TextMapCarrier = HeaderCarrier(nil)

// Get returns the first value of key, matched exactly, then in lowercase,
// then in any case.
func (c HeaderCarrier) Get(key string) string {
	if v := c[key]; len(v) > 0 {
		return v[0]
	}
	lower := strings.ToLower(key)
	if v := c[lower]; len(v) > 0 {
		return v[0]
	}
	for k, v := range c {
		if len(v) > 0 && strings.EqualFold(k, key) {
			return v[0]
		}
	}
	return ""
}

// Set stores value under the lowercase key and removes other spellings of
// it, so a message never carries two traceparent headers.
func (c HeaderCarrier) Set(key, value string) {
	lower := strings.ToLower(key)
	for k := range c {
		if k != lower && strings.EqualFold(k, lower) {
			delete(c, k)
		}
	}
	c[lower] = []string{value}
}

// Keys lists the header keys as they are spelled in the message.
func (c HeaderCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// Inject writes the trace context of ctx (traceparent, tracestate, baggage)
// into h. It does nothing when h is nil (nats.NewMsg makes a non-nil one)
// or ctx carries no span. Its signature is flowclient.HeaderInjector's.
func Inject(ctx context.Context, h nats.Header) {
	if h == nil {
		return
	}
	propagator.Inject(ctx, HeaderCarrier(h))
}

// Extract returns ctx with the remote span context and baggage found in h,
// or ctx unchanged when h carries none (or a malformed traceparent).
func Extract(ctx context.Context, h nats.Header) context.Context {
	if len(h) == 0 {
		return ctx
	}
	return propagator.Extract(ctx, HeaderCarrier(h))
}
