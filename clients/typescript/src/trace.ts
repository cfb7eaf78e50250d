// Trace context for published jobs, from @opentelemetry/api when the
// engine has it installed (an optional peer dependency: without it, jobs
// go out without trace headers and nothing else changes).
import type { MsgHdrs } from "nats";

import { HEADER_TRACEPARENT, HEADER_TRACESTATE } from "./contract.js";

type OtelApi = typeof import("@opentelemetry/api");

let loading: Promise<OtelApi | null> | undefined;

/** @opentelemetry/api, or null when it is not installed. Loaded once. */
export function otel(): Promise<OtelApi | null> {
  loading ??= import("@opentelemetry/api").then(
    (api) => api,
    () => null,
  );
  return loading;
}

/** What a traced publish needs from the caller. */
export interface PublishSpan {
  /** Ends the span with the publish's outcome. */
  end(err?: unknown): void;
}

const noSpan: PublishSpan = { end() {} };

/**
 * Starts the producer span of one job publish as a child of the active
 * span, and writes its W3C trace context into h: through the engine's
 * registered propagator, or — when none is registered — straight from the
 * span context, so that the executor's spans join the engine's trace
 * either way. Without @opentelemetry/api (or without an active trace) it
 * writes nothing.
 */
export async function startPublishSpan(h: MsgHdrs, subject: string, jobId: string): Promise<PublishSpan> {
  const api = await otel();
  if (!api) {
    return noSpan;
  }
  const tracer = api.trace.getTracer("@flowscript/client");
  const span = tracer.startSpan(`send ${subject}`, {
    kind: api.SpanKind.PRODUCER,
    attributes: {
      "messaging.system": "nats",
      "messaging.operation.type": "send",
      "messaging.operation.name": "send",
      "messaging.destination.name": subject,
      "messaging.message.id": jobId,
    },
  });
  const ctx = api.trace.setSpan(api.context.active(), span);
  api.propagation.inject(ctx, h, {
    set(carrier, key, value) {
      carrier.set(key, value);
    },
  });
  const sc = span.spanContext();
  if (!h.has(HEADER_TRACEPARENT) && api.isSpanContextValid(sc)) {
    const flags = (sc.traceFlags & api.TraceFlags.SAMPLED).toString(16).padStart(2, "0");
    h.set(HEADER_TRACEPARENT, `00-${sc.traceId}-${sc.spanId}-${flags}`);
    const state = sc.traceState?.serialize();
    if (state) {
      h.set(HEADER_TRACESTATE, state);
    }
  }
  return {
    end(err?: unknown) {
      if (err !== undefined) {
        span.recordException(err instanceof Error ? err : String(err));
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      }
      span.end();
    },
  };
}
