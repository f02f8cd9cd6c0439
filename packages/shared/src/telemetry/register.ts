// Imported FIRST by every process's main.ts (before express, grpc, pg, ioredis, kafkajs are
// loaded), because OpenTelemetry instruments a library by patching it when it is required.
import type * as Sdk from './sdk';
import { telemetryConfigured } from './state';

if (telemetryConfigured(process.env)) {
  // Loaded only when tracing is on: the SDK and its instrumentations take seconds to load
  // on a busy machine, which every process start would otherwise pay. It must load
  // synchronously, before the instrumented libraries, so `import()` would be too late.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./sdk') as typeof Sdk).startTelemetry(process.env);
}
