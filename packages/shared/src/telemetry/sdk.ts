import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { isTelemetryRunning, setRunning, telemetryConfigured } from './state';

/**
 * Starts tracing when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, read by the exporter itself, with the other standard
 * OTEL_* variables); otherwise does nothing, and the API stays a no-op that costs nothing.
 * Traces cover HTTP in and out, express routes, gRPC client and server (context crosses
 * in metadata), PostgreSQL and Redis. Kafka is traced by our own code, per business event:
 * the outbox relay's PRODUCER span and the webhooks consumer's CONSUMER span (context
 * crosses in message headers, see records' outbox/outboxMessages.ts).
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
      // No KafkaJsInstrumentation, deliberately: its producer patch starts one span per
      // message as a child of the context active at send(), the relay loop's (no trace),
      // and injects THAT span into the message headers, overwriting the traceparent the
      // relay put there from the business change's stored context: every event would
      // start a new, unrelated trace. It has no option to leave the producer alone, and its
      // eachBatch consumer side only adds a root "poll" span per batch with links. The
      // relay and the consumer make the semantic-convention spans themselves.
    ],
  });
  sdk.start();
  setRunning(sdk);
  return true;
}
