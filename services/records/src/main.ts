// The code cache first (later starts read compiled code instead of compiling it again), then
// telemetry: it instruments libraries as they are loaded (no-op without OTLP config).
import '@brand/shared/compileCache';
import '@brand/shared/telemetry/register';
import { callerTokensOf } from '@brand/shared/config';
import { createServicePool } from '@brand/shared/db';
import {
  createKafka,
  kafkaClientSecurity,
  kafkaConnectionStatus,
  type KafkaConnectionStatus,
} from '@brand/shared/kafka';
import { createLogger, type Logger } from '@brand/shared/logger';
import { createMetricsRegistry, GrpcServerMetrics } from '@brand/shared/metrics';
import { listenGrpcService } from '@brand/shared/service';
import { stopTelemetry } from '@brand/shared/telemetry';
import { closeRedis, createRedisClient, redisDependencyState } from '@brand/shared/redis';
import { exitOnStartupFailure, onShutdown } from '@brand/shared/shutdown';
import { redisRevocationNotifier } from './access/revocations';
import { startDomainRecheck } from './sso/domains/domainRecheck';
import { redisLogoutTokenLedger } from './sso/logoutTokenLedger';
import { loadRecordsConfig, type RecordsConfig } from './config';

import { migrate, SCHEMA } from './db/migrations';
import { startOutboxRelay } from './outbox/relay';
import { startServiceAuditRelay } from '@brand/shared/audit';
import { startOutboxPartitionKeeper } from './outbox/outboxPartitions';
import { startUsageSweep } from './usage/retentionSweep';
import { startVersionPublisher } from './versions/versionPublisher';
import { outboxMetrics, type RelayObserver } from './outbox/relayMetrics';
import { dnsProofFinder } from './sso/domains/txtLookup';
import { signInProviderCache } from './sso/oidcClient';
import { startSsoSessionCheck } from './sso/ssoSessionCheck';
import { listenForOutbox } from './outbox/wakeups';
import { createServer, SERVICE_NAMES } from './server';
import { SignInRateLimit } from './sessions/signInRateLimit';
import { ScimRateLimit } from './provisioning/scimRateLimit';
import { SecretBox } from '@brand/shared/secrets';

/** Composition root: the only place that reads process.env and listens. */
async function main(): Promise<void> {
  // A bad variable throws a ConfigError naming it; main().catch logs it and exits 1.
  const config = loadRecordsConfig(process.env);
  const log = createLogger({ service: 'records', level: config.LOG_LEVEL });
  if (config.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS) {
    log.warn(
      { setting: 'WEBHOOK_ALLOW_LOOPBACK_RECEIVERS' },
      'TEST SETTING ON: identity providers on 127.0.0.1, ::1 and localhost (plain http too) are admitted; never use this in production',
    );
  }

  const pool = createServicePool(config, { schema: SCHEMA, name: 'records', log });
  if (config.MIGRATE_ON_START) await migrate(pool, log);

  const redis = createRedisClient({
    url: config.REDIS_URL,
    tlsCaFile: config.REDIS_TLS_CA_FILE,
    passwordFile: config.REDIS_PASSWORD_FILE,
    name: 'records',
    log,
    queueWhileOffline: false,
    commandTimeoutMs: 1_000,
  });
  const versions = startVersionPublisher({
    pool,
    redis,
    keyPrefix: config.REDIS_KEY_PREFIX,
    log,
    sweepMs: config.CHANGE_VERSION_SWEEP_MS,
    windowSeconds: config.CHANGE_VERSION_SWEEP_WINDOW_SECONDS,
  });
  const registry = createMetricsRegistry();
  const usageSweep = startUsageSweep(pool, log, config.USAGE_SWEEP_INTERVAL_MS);
  const outboxDays = startOutboxPartitionKeeper(pool, log, {
    retentionMs: config.OUTBOX_RETENTION_MS,
    intervalMs: config.OUTBOX_PARTITION_INTERVAL_MS,
  });
  const providerPolicy = {
    allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS,
    extraOrigins: config.SSO_EXTRA_ORIGINS,
  };
  const secretBox = config.WEBHOOK_SECRET_KEY
    ? new SecretBox(config.WEBHOOK_SECRET_KEY, config.WEBHOOK_SECRET_KEYS_PREVIOUS)
    : undefined;
  const proofFinder = dnsProofFinder({
    servers: config.SSO_DNS_SERVERS,
    timeoutMs: config.SSO_DNS_TIMEOUT_MS,
  });
  const { server, health, pageStreams } = createServer({
    pool,
    log,
    revocations: redisRevocationNotifier(redis, config.REDIS_KEY_PREFIX, log),
    callerTokens: callerTokensOf(config),
    metrics: new GrpcServerMetrics(registry),
    cursorSecret: config.CURSOR_SECRET,
    cursorSecretsPrevious: config.CURSOR_SECRETS_PREVIOUS,
    versions,
    pageStreamMaxInFlight: config.PAGE_STREAM_MAX_IN_FLIGHT,
    usageTouched: usageSweep.touch,
    sso: {
      providerPolicy,
      findProof: proofFinder,
      changeProofMs: config.SSO_CHANGE_PROOF_MS,
      domainGraceMs: config.SSO_DOMAIN_GRACE_MS,
      logoutTokens: redisLogoutTokenLedger(redis, config.REDIS_KEY_PREFIX, log),
    },
    secretBox,
    scimLimit: new ScimRateLimit(
      redis,
      config.REDIS_KEY_PREFIX,
      { perToken: config.SCIM_REQUESTS_PER_TOKEN, windowMs: config.SCIM_REQUEST_WINDOW_MS },
      log,
    ),
    sessions: {
      rateLimit: new SignInRateLimit(
        redis,
        config.REDIS_KEY_PREFIX,
        {
          perAddressAndClient: config.SIGN_IN_LINKS_PER_ADDRESS_AND_CLIENT,
          perClient: config.SIGN_IN_LINKS_PER_CLIENT,
          windowMs: config.SIGN_IN_LINK_WINDOW_MS,
        },
        log,
      ),
      assertionKey: config.CONSOLE_ASSERTION_PRIVATE_KEY,
      linkTtlMs: config.SIGN_IN_LINK_TTL_MS,
      mailSpacingMs: config.SIGN_IN_MAIL_SPACING_MS,
      mailSpacingMaxMs: Math.max(
        config.SIGN_IN_MAIL_SPACING_MAX_MS,
        config.SIGN_IN_MAIL_SPACING_MS,
      ),
      mailLeaseMs: config.SIGN_IN_MAIL_LEASE_MS,
      idleMs: config.CONSOLE_SESSION_IDLE_MS,
      maxAgeMs: config.CONSOLE_SESSION_MAX_MS,
    },
  });
  // Readiness says why events wait when the relay cannot reach Kafka (issue 43).
  const relaying = config.KAFKA_BROKERS.length > 0 && config.OUTBOX_RELAY_ENABLED;
  const kafkaStatus = relaying
    ? kafkaConnectionStatus({ client: 'records-outbox-relay', log, registry })
    : undefined;
  const service = await listenGrpcService({
    server,
    health,
    serviceNames: SERVICE_NAMES,
    pool,
    log,
    registry,
    config,
    // Redis holds revocations, the logout ledger and the sign-in and SCIM rate limits: reported
    // (dependency_up, for BrandRecordsRedisUnreachable), never failing grpc.health.v1.
    dependencies: {
      redis: () => redisDependencyState(redis),
      ...(kafkaStatus ? { kafka: () => kafkaStatus.state() } : {}),
    },
  });
  log.info({ port: service.port, host: config.GRPC_HOST, ops_port: service.opsPort }, 'listening');
  const relay = startRelay(config, log, outboxMetrics(registry, pool), kafkaStatus);
  const ssoCheck = startSsoSessionCheck({
    pool,
    log,
    box: secretBox,
    providers: signInProviderCache(providerPolicy),
    intervalMs: config.SSO_RECHECK_INTERVAL_MS,
  });
  const domainRecheck = startDomainRecheck({
    pool,
    log,
    findProof: proofFinder,
    intervalMs: config.SSO_DOMAIN_RECHECK_INTERVAL_MS,
    graceMs: config.SSO_DOMAIN_GRACE_MS,
  });

  // Activity and refused requests on their way to the trail (issue 63), in order.
  const auditRelay = startServiceAuditRelay(config, { pool, log, source: 'records', registry });

  onShutdown(log, config.SHUTDOWN_GRACE_MS, [
    service.reportNotServing,
    {
      // Page streams live as long as the gateway keeps them: ask each gateway to send its pages
      // elsewhere, answer what is under way, and let the streams end, so finishing calls does
      // not wait out the grace period nor cut a page off.
      name: 'drain page streams',
      run: () => pageStreams.drain(config.SHUTDOWN_GRACE_MS / 3),
    },
    service.finishCalls,
    {
      name: 'stop the outbox relay: finish the in-flight batch, disconnect the producer',
      run: () => relay?.stop(Math.max(1_000, config.SHUTDOWN_GRACE_MS / 3)),
    },
    service.closeOps,
    auditRelay,
    { name: 'stop the change-version sweep', run: () => versions.stop() },
    { name: 'stop the usage retention sweep', run: () => usageSweep.stop() },
    { name: 'stop the SSO session re-check: finish its round', run: () => ssoCheck.stop() },
    { name: 'stop the SSO domain re-check: finish its round', run: () => domainRecheck.stop() },
    { name: 'stop the outbox partition keeper', run: () => outboxDays.stop() },
    { name: 'close redis', run: () => closeRedis(redis) },
    { name: 'close database pool', run: () => pool.end() },
    { name: 'flush traces', run: stopTelemetry },
  ]);
}

/**
 * The outbox relay, when Kafka is configured and the relay is not turned off: its own small
 * pool (a batch holds a connection while Kafka acknowledges, which must never starve the
 * RPCs) and a LISTEN connection that wakes it when a change commits.
 */
function startRelay(
  config: RecordsConfig,
  log: Logger,
  observer: RelayObserver,
  status: KafkaConnectionStatus | undefined,
): { stop(timeoutMs: number): Promise<void> } | undefined {
  if (config.KAFKA_BROKERS.length === 0 || !config.OUTBOX_RELAY_ENABLED || !status) {
    const reason = config.KAFKA_BROKERS.length === 0 ? 'KAFKA_BROKERS is not set' : 'turned off';
    log.info({ reason }, 'outbox relay off: events wait in the outbox');
    return undefined;
  }
  const pool = createServicePool(config, {
    schema: SCHEMA,
    name: 'records-outbox-relay',
    log,
    max: 2,
  });
  const relay = startOutboxRelay({
    pool,
    kafka: createKafka({
      brokers: config.KAFKA_BROKERS,
      clientId: 'records-outbox-relay',
      log,
      security: kafkaClientSecurity(config),
    }),
    log,
    topic: config.BUSINESS_EVENTS_TOPIC,
    batchSize: config.OUTBOX_BATCH_SIZE,
    pollMs: config.OUTBOX_POLL_MS,
    maxBackoffMs: config.OUTBOX_MAX_BACKOFF_MS,
    observer,
    status,
  });
  const listener = listenForOutbox({
    connectionString: config.DATABASE_URL,
    sslCaFile: config.DATABASE_SSL_CA_FILE,
    log,
    onNotify: () => relay.wake(),
  });
  return {
    async stop(timeoutMs) {
      await listener.close();
      await relay.stop(timeoutMs);
      await pool.end();
    },
  };
}

main().catch((err: unknown) =>
  exitOnStartupFailure(createLogger({ service: 'records', level: 'info' }), err),
);
