import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { isTelemetryRunning, setRunning, telemetryConfigured } from './state';

/**
 * Starts tracing when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, read by the exporter itself, with the other standard
 * OTEL_* variables); otherwise does nothing, and the API stays a no-op that costs nothing.
 * Traces cover HTTP in and out, express routes, gRPC client and server (context crosses
 * in metadata), PostgreSQL, Redis and Kafka (context crosses in message headers).
 * Returns true when tracing started.
 */
export function startTelemetry(env: NodeJS.ProcessEnv): boolean {
  if (isTelemetryRunning() || !telemetryConfigured(env)) return isTelemetryRunning();
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
    instrumentations: [
      new HttpInstrumentation({
        // probes and scrapes are not traffic worth a trace each
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)\b/.test(req.url ?? ''),
      }),
      new ExpressInstrumentation(),
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
      // only queries inside a traced operation: the health probe's select 1 is not worth a trace
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new KafkaJsInstrumentation(),
    ],
  });
  sdk.start();
  setRunning(sdk);
  return true;
}
