import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';

/**
 * The W3C trace context of a span (traceparent, tracestate), as stored in a row whose
 * work continues the trace later in another process: an outbox row, a webhooks event.
 * Both are null when nothing is traced.
 */
export interface StoredTraceContext {
  traceparent: string | null;
  tracestate: string | null;
}

/**
 * The W3C context of `ctx` (by default the active span's). Uses the global propagator:
 * while tracing is off it is the API's no-op, which writes nothing, so this costs nothing
 * and returns nulls.
 */
export function traceContextOf(ctx: Context = context.active()): StoredTraceContext {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return { traceparent: carrier.traceparent ?? null, tracestate: carrier.tracestate ?? null };
}

/**
 * The W3C context of one span, e.g. to put in the headers of the message it sends. A span
 * with no valid context (every span while tracing is off) has none to give: answered without
 * building a context for the propagator to find nothing in (the gateway asks on every page).
 */
export function traceContextOfSpan(span: Span): StoredTraceContext {
  if (!isSpanContextValid(span.spanContext())) return { traceparent: null, tracestate: null };
  return traceContextOf(trace.setSpan(ROOT_CONTEXT, span));
}

/**
 * The context that continues a stored trace: spans started in it are children of the
 * span that stored it. The root context (a new trace) when nothing was stored.
 */
export function continueTrace(stored: Partial<StoredTraceContext>): Context {
  if (!stored.traceparent) return ROOT_CONTEXT;
  const carrier: Record<string, string> = { traceparent: stored.traceparent };
  if (stored.tracestate) carrier.tracestate = stored.tracestate;
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** Kafka message headers as kafkajs hands them over (Buffer values, possibly repeated). */
export type MessageHeaders = Record<string, Buffer | string | (Buffer | string)[] | undefined>;

const headerGetter: TextMapGetter<MessageHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    const first = Array.isArray(value) ? value[0] : value;
    return first === undefined ? undefined : first.toString();
  },
};

/** The context a message's trace headers carry (the root context when they carry none). */
export function continueTraceFromHeaders(headers: MessageHeaders | undefined): Context {
  return headers ? propagation.extract(ROOT_CONTEXT, headers, headerGetter) : ROOT_CONTEXT;
}
