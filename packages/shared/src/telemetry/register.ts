// Imported FIRST by every process's main.ts (before express, grpc, pg, ioredis, kafkajs are
// loaded), because OpenTelemetry instruments a library by patching it when it is required.
import { startTelemetry } from './sdk';

startTelemetry(process.env);
