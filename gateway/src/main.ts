// The code cache first (later starts read compiled code instead of compiling it again), then
// telemetry: it instruments libraries as they are loaded (no-op without OTLP config).
import '@brand/shared/compileCache';
import '@brand/shared/telemetry/register';
import { createServer } from 'node:http';
import { createBatchedStdout, createLogger } from '@brand/shared/logger';
import { dependencyUpGauge } from '@brand/shared/metrics';
import { stopTelemetry } from '@brand/shared/telemetry';
import { closeRedis, createRedisClient, waitUntilReady } from '@brand/shared/redis';
import {
  closeHttpServer,
  createPublicHttpServer,
  drainHttpSteps,
  listenHttp,
} from '@brand/shared/httpServer';
import { exitOnStartupFailure, onShutdown } from '@brand/shared/shutdown';
import { createGatewayListener } from './app';
import { createOpsApp } from './opsApp';
import { AccessGate } from './auth/accessGate';
import { clientAddressOf } from './auth/requestAddress';
import { Authenticator } from './auth/authenticator';
import { KeyCache } from './auth/keyCache';
import { listenForRevocations } from './auth/revocationListener';
import { SharedProvenKeys } from './auth/sharedProvenKeys';
import { createPlansApi } from './clients/plansClient';
import { createAuditLogApi } from './clients/auditLogClient';
import { createEventsFeedApi } from './clients/eventsFeedClient';
import { createRecordsApi } from './clients/recordsClient';
import { loadGatewayConfig, trustProxySetting } from './config';
import { changeVersionRepair } from './records/changeVersions';
import { GatewayMetrics } from './observability/metrics';
import type * as ServedDocument from './endpoints/describeEndpoints';
import { AdmissionLedger } from './ratelimit/admissionLedger';
import { MemorySlidingWindowLimiter } from './ratelimit/memoryLimiter';
import { RedisSlidingWindowLimiter } from './ratelimit/redisLimiter';
import { ResilientLimiter } from './ratelimit/resilientLimiter';
import { MCP_PATH, mcpRefusalBody } from './endpoints/mcp/rpcAnswers';
import { AddressBrands } from './usage/addressBrands';
import { UsageBuffer } from './usage/usageBuffer';
import { UsageFlusher } from './usage/usageFlusher';
import { UsageRecorder } from './usage/usageRecorder';
import { AccessLog } from './observability/accessLog';

/** Composition root: the only place that reads process.env and listens. */
async function main(): Promise<void> {
  // A bad variable throws a ConfigError naming it; main().catch logs it and exits 1.
  const config = loadGatewayConfig(process.env);
  const log = createLogger({ service: 'gateway', level: config.LOG_LEVEL });

  const metrics = new GatewayMetrics();
  // records' pages and the events feed's travel on page streams with the same settings
  const pageStreams = {
    streamsPerAddress: config.PAGE_STREAMS_PER_ADDRESS,
    maxInFlightPerStream: config.PAGE_STREAM_MAX_IN_FLIGHT,
    maxQueued: config.PAGE_STREAM_MAX_QUEUED,
    maxAgeMs: config.PAGE_STREAM_MAX_AGE_MS,
    resolveIntervalMs: config.RECORDS_RESOLVE_INTERVAL_MS,
    maxFailovers: config.PAGE_STREAM_MAX_FAILOVERS,
  };
  const records = createRecordsApi(config.RECORDS_GRPC_ADDR, {
    deadlineMs: config.GRPC_DEADLINE_MS,
    token: config.INTERNAL_TOKEN,
    log,
    pageStreams,
    observe: (stats) => metrics.observePageStreams('records', stats),
  });
  const plans = createPlansApi(config.PLANS_GRPC_ADDR, {
    deadlineMs: config.GRPC_DEADLINE_MS,
    token: config.INTERNAL_TOKEN,
  });
  const feed = createEventsFeedApi(config.WEBHOOKS_GRPC_ADDR, {
    deadlineMs: config.GRPC_DEADLINE_MS,
    token: config.INTERNAL_TOKEN,
    log,
    pageStreams,
    observe: (stats) => metrics.observePageStreams('feed', stats),
  });
  const audit = createAuditLogApi(config.WEBHOOKS_GRPC_ADDR, {
    deadlineMs: config.GRPC_DEADLINE_MS,
    token: config.INTERNAL_TOKEN,
  });
  const redis = createRedisClient({
    url: config.REDIS_URL,
    tlsCaFile: config.REDIS_TLS_CA_FILE,
    passwordFile: config.REDIS_PASSWORD_FILE,
    name: 'gateway',
    log,
    queueWhileOffline: false,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
  });
  const subscriber = createRedisClient({
    url: config.REDIS_URL,
    tlsCaFile: config.REDIS_TLS_CA_FILE,
    passwordFile: config.REDIS_PASSWORD_FILE,
    name: 'gateway-revocations',
    log,
    queueWhileOffline: true,
  });
  // The rate limiter's Redis, for BrandRecordsRedisUnreachable (readiness says "degraded").
  dependencyUpGauge(metrics.registry, () => ({ redis: redis.status === 'ready' }));

  const keyCache = new KeyCache({
    ttlMs: config.KEY_CACHE_TTL_MS,
    maxEntries: config.KEY_CACHE_MAX_ENTRIES,
    provenTtlMs: config.KEY_PROVEN_TTL_MS,
  });
  const stopListening = listenForRevocations(subscriber, config.REDIS_KEY_PREFIX, keyCache, log);
  // What this instance admitted in the current window: the fallback starts from it, and a
  // Redis that restarted empty gets it back (issue 19).
  const ledger = new AdmissionLedger({ maxKeys: 100_000 });
  const limiter = new ResilientLimiter(
    new RedisSlidingWindowLimiter(redis, config.REDIS_KEY_PREFIX, ledger, () =>
      log.warn(
        'Redis lost the rate-limit state (restarted or flushed): budgets are re-seeded from what this instance admitted',
      ),
    ),
    new MemorySlidingWindowLimiter({ ledger, instances: config.RATE_LIMIT_FALLBACK_INSTANCES }),
    log,
    (d) => metrics.recordDecision(d),
  );
  const addressOf = clientAddressOf(trustProxySetting(config.TRUST_PROXY));
  // Usage counting (issue 26): a bounded buffer per instance, flushed to records in batches.
  const usageBuffer = new UsageBuffer(
    { maxBuckets: config.USAGE_MAX_BUCKETS, maxLogEntries: config.USAGE_MAX_LOG_ENTRIES },
    (kind, n, { reason }) => metrics.usageDrop(kind, n, reason),
  );
  const usageFlusher = new UsageFlusher({
    buffer: usageBuffer,
    send: (batch) => records.recordUsage(batch, config.SERVICE_ENVIRONMENT),
    log,
    intervalMs: config.USAGE_FLUSH_INTERVAL_MS,
    maxAttempts: config.USAGE_FLUSH_MAX_ATTEMPTS,
    onFlush: (outcome) => metrics.usageFlush(outcome),
    onDropBatch: (counts, logEntries) => {
      metrics.usageDrop('counts', counts, 'batch_dropped');
      metrics.usageDrop('log', logEntries, 'batch_dropped');
    },
  });
  const usage = new UsageRecorder({
    buffer: usageBuffer,
    addresses: new AddressBrands({
      maxAddresses: config.USAGE_MAX_ADDRESSES,
      ttlMs: 24 * 3_600_000,
    }),
    addressOf,
    assistantRoute: MCP_PATH,
  });
  const gate = new AccessGate(
    new Authenticator(
      records,
      keyCache,
      config.SERVICE_ENVIRONMENT,
      new SharedProvenKeys(redis, config.REDIS_KEY_PREFIX, config.KEY_PROVEN_TTL_MS, log),
    ),
    limiter,
    config.ANONYMOUS_RATE_LIMIT_PER_MINUTE,
    config.RATE_LIMIT_SCALE,
    (reason) => metrics.recordAuthFailure(reason),
    addressOf,
  );
  if (config.RATE_LIMIT_SCALE !== 1) {
    log.warn(
      { scale: config.RATE_LIMIT_SCALE },
      'RATE_LIMIT_SCALE is set: brand budgets are multiplied (benchmarks and tests only)',
    );
  }
  const health = { accepting: true };

  const app = createGatewayListener({
    log,
    gate,
    records,
    plans,
    feed,
    audit,
    redis,
    changeVersions: changeVersionRepair(redis, config.REDIS_KEY_PREFIX, log),
    metrics,
    health,
    openApiYaml: renderedOnce(config.PUBLIC_BASE_URL),
    trustProxy: trustProxySetting(config.TRUST_PROXY),
    accessLog: config.ACCESS_LOG
      ? new AccessLog({ service: 'gateway', level: config.LOG_LEVEL, sink: createBatchedStdout() })
      : undefined,
    usage,
    mcp: {
      allowedOrigins: config.MCP_ALLOWED_ORIGINS,
      maxBodyBytes: config.MCP_MAX_BODY_BYTES,
      timeoutMs: config.GRPC_DEADLINE_MS + 1_000,
    },
  });

  // Give Redis a moment so the first requests share the budget instead of falling back.
  if (!(await waitUntilReady(redis, 2_000)))
    log.warn('starting without Redis: rate limits are per instance until it connects');

  // Deadlines are checked every second, and what Node's HTTP layer refuses (431, 400, 408,
  // 417) is answered as the contract's JSON error (createPublicHttpServer), or on the
  // assistant endpoint's path as JSON-RPC, like its every other answer.
  const server = createPublicHttpServer(app, log, { refusalBody: mcpRefusalBody });
  // Longer than common load-balancer idle timeouts (60 s), so the balancer closes first.
  server.keepAliveTimeout = 65_000;
  // A request's headers and body must arrive within BODY_TIMEOUT_MS, or it gets 408 and
  // the connection closes: slow-body clients cannot hold connections.
  server.requestTimeout = config.BODY_TIMEOUT_MS;
  server.headersTimeout = Math.min(10_000, config.BODY_TIMEOUT_MS);
  const ops = createServer(
    createOpsApp({
      records,
      plans,
      redis,
      state: health,
      metrics,
      readyWithoutRecords: config.READY_WITHOUT_RECORDS,
    }),
  );
  for (const s of [server, ops]) s.on('error', (err) => exitOnStartupFailure(log, err));
  const [port, opsPort] = await Promise.all([
    listenHttp(server, config.HTTP_PORT, config.HTTP_HOST),
    listenHttp(ops, config.METRICS_PORT, config.METRICS_HOST),
  ]);
  usageFlusher.start();
  log.info(
    {
      port,
      host: config.HTTP_HOST,
      ops_port: opsPort,
      ops_host: config.METRICS_HOST,
      environment: config.SERVICE_ENVIRONMENT,
    },
    'listening',
  );

  onShutdown(log, config.SHUTDOWN_DRAIN_MS + config.SHUTDOWN_GRACE_MS, [
    // Not ready and still serving for SHUTDOWN_DRAIN_MS, every answer with Connection: close
    // (the request prelude), then the listener closes and in-flight requests finish.
    ...drainHttpSteps({ server, state: health, drainMs: config.SHUTDOWN_DRAIN_MS }),
    { name: 'close the operations listener', run: () => closeHttpServer(ops) },
    // After the last request finished, before the channel to records closes.
    { name: 'flush usage counts to records', run: () => usageFlusher.stop() },
    { name: 'stop listening for revocations', run: stopListening },
    {
      name: 'close gRPC channels',
      run: () => {
        records.close();
        plans.close();
        feed.close();
        audit.close();
      },
    },
    {
      name: 'close redis',
      run: async () =>
        Promise.all([closeRedis(redis), closeRedis(subscriber)]).then(() => undefined),
    },
    { name: 'flush traces', run: stopTelemetry },
  ]);
}

main().catch((err: unknown) =>
  exitOnStartupFailure(createLogger({ service: 'gateway', level: 'info' }), err),
);

/**
 * The served OpenAPI document, rendered on the first request for it: the describing code (zod
 * to OpenAPI, YAML) is loaded then too, so a start does not pay ~0.1 s of CPU for a document
 * most replicas are never asked for.
 */
function renderedOnce(serverUrl: string | undefined): () => string {
  const render = (): string => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const served = require('./endpoints/describeEndpoints') as typeof ServedDocument;
    return served.renderServedDocument(serverUrl);
  };
  let yaml: string | undefined;
  return () => (yaml ??= render());
}
