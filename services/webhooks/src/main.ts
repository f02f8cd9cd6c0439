// Telemetry first: it instruments libraries as they are loaded (no-op without OTLP config).
import '@brand/shared/telemetry/register';
import { readFileSync } from 'node:fs';
import { callerTokensOf } from '@brand/shared/config';
import { createServicePool } from '@brand/shared/db';
import { createKafka } from '@brand/shared/kafka';
import { createLogger } from '@brand/shared/logger';
import { createMetricsRegistry, GrpcServerMetrics } from '@brand/shared/metrics';
import { listenGrpcService } from '@brand/shared/service';
import { exitOnStartupFailure, onShutdown, type ShutdownStep } from '@brand/shared/shutdown';
import { stopTelemetry } from '@brand/shared/telemetry';
import { loadWebhooksConfig } from './config';

import { migrate, SCHEMA } from './db/migrations';
import { deliveryMetrics } from './deliveries/deliveryMetrics';
import { Sender } from './deliveries/sender';
import { DeliveryWorker } from './deliveries/worker';
import { startConsumer } from './events/consumer';
import { consumerLagMetrics, consumerMetrics } from './events/consumerMetrics';
import { SecretBox } from './receivers/secretBox';
import { systemResolver } from './receivers/urlPolicy';
import { createServer, SERVICE_NAMES } from './server';

/** Composition root: the only place that reads process.env and listens. */
async function main(): Promise<void> {
  const config = loadWebhooksConfig(process.env);
  const log = createLogger({ service: 'webhooks', level: config.LOG_LEVEL });
  const roles = new Set(config.WEBHOOKS_ROLES);
  if (config.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS) {
    log.warn(
      { setting: 'WEBHOOK_ALLOW_LOOPBACK_RECEIVERS' },
      'TEST SETTING ON: receivers on 127.0.0.1, ::1 and localhost are admitted; never use this in production',
    );
  }
  const extraCa = config.WEBHOOK_EXTRA_CA_FILE
    ? readFileSync(config.WEBHOOK_EXTRA_CA_FILE, 'utf8')
    : undefined;
  if (extraCa)
    log.warn({ file: config.WEBHOOK_EXTRA_CA_FILE }, 'trusting an extra CA for receivers');

  const pool = createServicePool(config, { schema: SCHEMA, name: 'webhooks', log });
  if (config.MIGRATE_ON_START) await migrate(pool, log);
  const box = new SecretBox(config.WEBHOOK_SECRET_KEY, config.WEBHOOK_SECRET_KEYS_PREVIOUS);

  const registry = createMetricsRegistry();
  const deliveryObserver = deliveryMetrics(registry, pool);
  const steps: ShutdownStep[] = [];
  let worker: DeliveryWorker | undefined;
  let sender: Sender | undefined;
  if (roles.has('worker')) {
    sender = new Sender({
      allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS,
      connectTimeoutMs: config.DELIVERY_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: config.DELIVERY_TIMEOUT_MS,
      extraCa,
    });
    worker = new DeliveryWorker(
      { pool, log: log.child({ role: 'worker' }), sender, box, observer: deliveryObserver },
      {
        concurrency: config.DELIVERY_CONCURRENCY,
        perReceiver: config.DELIVERY_PER_RECEIVER_CONCURRENCY,
        leaseMs: config.DELIVERY_LEASE_MS,
        pollMs: config.DELIVERY_POLL_MS,
        scale: config.RETRY_TIME_SCALE,
        disableAfterMs: config.RECEIVER_DISABLE_AFTER_MS,
      },
    );
    worker.start();
  }
  if (roles.has('consumer')) {
    const kafka = createKafka({
      brokers: config.KAFKA_BROKERS,
      clientId: config.KAFKA_CLIENT_ID,
      log,
    });
    const consumer = await startConsumer({
      kafka,
      pool,
      log,
      topic: config.BUSINESS_EVENTS_TOPIC,
      groupId: config.KAFKA_CONSUMER_GROUP,
      ensureTopic: config.KAFKA_ENSURE_TOPIC,
      partitions: config.KAFKA_TOPIC_PARTITIONS,
      onIngested: () => worker?.wake(),
      observer: consumerMetrics(registry),
      onFatal: (err) => {
        // Offsets are committed only after the database has the events: exiting loses
        // nothing, and the orchestrator (or the local script) restarts the process.
        log.fatal({ err }, 'the Kafka consumer stopped for good; exiting');
        process.exit(1);
      },
    });
    const lag = consumerLagMetrics(registry, {
      kafka,
      topic: config.BUSINESS_EVENTS_TOPIC,
      groupId: config.KAFKA_CONSUMER_GROUP,
    });
    steps.push({
      name: 'stop consuming (commits are already done)',
      run: async () => {
        await consumer.stop();
        await lag.close();
      },
    });
  }

  const { server, health } = createServer({
    log,
    callerTokens: callerTokensOf(config),
    metrics: new GrpcServerMetrics(registry),
    receivers: roles.has('admin')
      ? {
          pool,
          box,
          resolve: systemResolver,
          allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS,
          maxPerBrand: config.WEBHOOK_MAX_RECEIVERS_PER_BRAND,
        }
      : undefined,
  });
  const service = await listenGrpcService({
    server,
    health,
    serviceNames: SERVICE_NAMES,
    pool,
    log,
    registry,
    config,
  });
  log.info(
    { port: service.port, host: config.GRPC_HOST, ops_port: service.opsPort, roles: [...roles] },
    'listening',
  );

  onShutdown(log, config.SHUTDOWN_GRACE_MS, [
    service.reportNotServing,
    ...steps,
    {
      name: 'finish in-flight deliveries (unfinished leases expire and are retried)',
      run: async () => {
        await worker?.stop(Math.floor(config.SHUTDOWN_GRACE_MS / 2));
        await sender?.close();
      },
    },
    service.finishCalls,
    service.closeOps,
    { name: 'close database pool', run: () => pool.end() },
    { name: 'flush traces', run: stopTelemetry },
  ]);
}

main().catch((err: unknown) =>
  exitOnStartupFailure(createLogger({ service: 'webhooks', level: 'info' }), err),
);
