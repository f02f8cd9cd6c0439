export { startTelemetry, stopTelemetry } from './sdk';
export { traceFields } from './traceFields';
