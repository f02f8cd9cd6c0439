import { trace } from '@opentelemetry/api';

/**
 * The active trace and span ids, for a log line (pino's mixin), so logs and traces of one
 * request join up; empty when nothing is traced.
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || context.traceId === '00000000000000000000000000000000') return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}
