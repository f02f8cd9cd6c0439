import {
  SpanStatusCode,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';

/** Marks a span failed with `error` (the exception event and an ERROR status). */
export function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

/**
 * Runs `fn` in a new active span, child of `parent`, so the spans `fn` causes (queries,
 * calls) are its children; the span fails with whatever `fn` throws and always ends.
 * Costs next to nothing while tracing is off (the API's no-op tracer).
 */
export function withSpan<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptions,
  parent: Context,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, options, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}
