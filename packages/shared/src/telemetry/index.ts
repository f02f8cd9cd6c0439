export { isTelemetryRunning, stopTelemetry, telemetryConfigured } from './state';
export { traceFields } from './traceFields';
