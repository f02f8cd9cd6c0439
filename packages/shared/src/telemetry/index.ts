export { isTelemetryRunning, stopTelemetry, telemetryConfigured } from './state';
export {
  continueTrace,
  continueTraceFromHeaders,
  traceContextOf,
  traceContextOfSpan,
  type MessageHeaders,
  type StoredTraceContext,
} from './traceContext';
export { traceFields } from './traceFields';
export { failSpan, withSpan } from './withSpan';
