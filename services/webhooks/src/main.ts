// The code cache first (later starts read compiled code instead of compiling it again), then
// telemetry: it instruments libraries as they are loaded (no-op without OTLP config).
import '@brand/shared/compileCache';
import '@brand/shared/telemetry/register';
import { readFileSync } from 'node:fs';
import { assertionKeysOf } from '@brand/shared/config';
import { createServicePool } from '@brand/shared/db';
import { watchKafkaReachability } from '@brand/shared/kafka';
import { createLogger } from '@brand/shared/logger';
import { closeRedis, createRedisClient, redisDependencyState } from '@brand/shared/redis';
import { createMetricsRegistry, GrpcServerMetrics } from '@brand/shared/metrics';
import { listenGrpcService } from '@brand/shared/service';
import { exitOnStartupFailure, onShutdown } from '@brand/shared/shutdown';
import { stopTelemetry } from '@brand/shared/telemetry';
import type { AdminDeps } from './admin/adminHandlers';
import { callerTokensFor, loadWebhooksConfig } from './config';
import { migrate, SCHEMA } from './db/migrations';
import { deliveryMetrics, laneMetrics } from './claim/deliveryMetrics';
import { startWorkerRole } from './claim/workerRole';
import { systemResolver } from './egress/urlPolicy';
import { kafkaReachableMetric } from './ingest/consumerMetrics';
import { startConsumerRole } from './ingest/consumerRole';
import { feedVersionPublisher, startFeedVersionSweep } from './ingest/feedVersions';
import { SecretBox } from '@brand/shared/secrets';
import { createServer, SERVICE_NAMES } from './server';
import type { FeedDeps } from './feed/feedHandlers';
import { cursorKeys } from './cursorKeys';

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
  // Registered whatever the roles: every replica reports the pending deliveries it reads.
  const deliveryObserver = deliveryMetrics(registry, pool);
  // The roles this process plays (WEBHOOKS_ROLES); each can run as its own Deployment.
  const worker = roles.has('worker')
    ? startWorkerRole(config, { pool, log, box, observer: deliveryObserver, extraCa })
    : undefined;
  if (worker)
    laneMetrics(
      registry,
      () => worker.inFlight(),
      () => worker.unrecordedCount(),
    );
  // Watched before the consumer starts, so a broker that is gone is said from the first probe.
  const kafka = roles.has('consumer')
    ? watchKafkaReachability({
        brokers: config.KAFKA_BROKERS,
        intervalMs: config.KAFKA_PROBE_INTERVAL_MS,
        log,
      })
    : undefined;
  if (kafka) kafkaReachableMetric(registry, () => kafka.reachable());
  // The consumer publishes the events feed's versions (the gateway's 304 of a feed page).
  const redis = roles.has('consumer')
    ? createRedisClient({
        url: config.REDIS_URL,
        name: 'webhooks',
        log,
        queueWhileOffline: false,
        commandTimeoutMs: 1_000,
        tlsCaFile: config.REDIS_TLS_CA_FILE,
        passwordFile: config.REDIS_PASSWORD_FILE,
      })
    : undefined;
  const consuming = roles.has('consumer')
    ? startConsumerRole(config, {
        pool,
        log,
        registry,
        onIngested: (deliveries) => worker?.feedStored(deliveries),
        onFeedAdvanced: redis
          ? feedVersionPublisher(redis, config.REDIS_KEY_PREFIX, log)
          : undefined,
      })
    : undefined;
  // beside the consumer that advances the heads: a publish it lost reaches Redis within a sweep
  const stopFeedSweep =
    consuming && redis
      ? startFeedVersionSweep({
          pool,
          redis,
          keyPrefix: config.REDIS_KEY_PREFIX,
          log,
          everyMs: config.FEED_VERSION_SWEEP_MS,
          windowSeconds: config.FEED_VERSION_SWEEP_WINDOW_SECONDS,
        })
      : undefined;
  const feedCursorKeys = cursorKeys(
    'events-feed-cursor',
    config.WEBHOOK_SECRET_KEY,
    config.WEBHOOK_SECRET_KEYS_PREVIOUS,
  );
  const admin: AdminDeps | undefined = roles.has('admin')
    ? {
        pool,
        box,
        resolve: systemResolver,
        allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS,
        maxPerBrand: config.WEBHOOK_MAX_RECEIVERS_PER_BRAND,
        recoveryMaxPerRequest: config.RECOVERY_MAX_PER_REQUEST,
        historyRetentionMs: config.DELIVERY_HISTORY_RETENTION_MS,
        cursorKeys: feedCursorKeys,
      }
    : undefined;
  const feed: FeedDeps | undefined = roles.has('admin')
    ? { pool, cursorKeys: feedCursorKeys }
    : undefined;
  const audit = roles.has('admin')
    ? {
        pool,
        cursorKeys: cursorKeys(
          'audit-log-cursor',
          config.WEBHOOK_SECRET_KEY,
          config.WEBHOOK_SECRET_KEYS_PREVIOUS,
        ),
        onStored: () => worker?.wakeStreams(),
      }
    : undefined;

  const { server, health, feedStreams } = createServer({
    log,
    callerTokens: callerTokensFor(config),
    memberAssertionKeys: assertionKeysOf(config),
    metrics: new GrpcServerMetrics(registry),
    admin,
    feed,
    audit,
    streams: admin && {
      pool,
      box,
      resolve: systemResolver,
      allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS,
      maxPerBrand: config.AUDIT_STREAMS_PER_BRAND,
      historyRetentionMs: config.DELIVERY_HISTORY_RETENTION_MS,
      onChanged: () => worker?.wakeStreams(),
    },
    pageStreamMaxInFlight: config.PAGE_STREAM_MAX_IN_FLIGHT,
  });
  const service = await listenGrpcService({
    server,
    health,
    serviceNames: SERVICE_NAMES,
    pool,
    log,
    registry,
    config,
    // unreachable (no broker answers), else what the consumer found: ok, or the refusal
    // and Redis, where the consumer publishes the feed's versions (dependency_up, for
    // BrandRecordsRedisUnreachable)
    dependencies: {
      ...(kafka && consuming
        ? { kafka: () => (kafka.reachable() ? consuming.status.state() : 'unreachable') }
        : {}),
      ...(redis ? { redis: () => redisDependencyState(redis) } : {}),
    },
  });
  log.info(
    { port: service.port, host: config.GRPC_HOST, ops_port: service.opsPort, roles: [...roles] },
    'listening',
  );

  onShutdown(log, config.SHUTDOWN_GRACE_MS, [
    service.reportNotServing,
    // The feed's page streams live as long as the gateway keeps them: ask each gateway to send
    // its pages elsewhere and answer what is under way, so finishing calls does not wait out
    // the grace period nor cut a page off (as records does with its page streams).
    ...(feedStreams
      ? [
          {
            name: 'drain the feed page streams',
            run: () => feedStreams.drain(config.SHUTDOWN_GRACE_MS / 3),
          },
        ]
      : []),
    ...(consuming ? [consuming.stop] : []),
    ...(stopFeedSweep ? [{ name: 'stop the feed-version sweep', run: stopFeedSweep }] : []),
    ...(kafka ? [{ name: 'stop watching Kafka', run: () => kafka.stop() }] : []),
    ...(worker ? [worker.stop] : []),
    service.finishCalls,
    service.closeOps,
    { name: 'close database pool', run: () => pool.end() },
    ...(redis ? [{ name: 'close redis', run: () => closeRedis(redis) }] : []),
    { name: 'flush traces', run: stopTelemetry },
  ]);
}

main().catch((err: unknown) =>
  exitOnStartupFailure(createLogger({ service: 'webhooks', level: 'info' }), err),
);
