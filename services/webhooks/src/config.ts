import { z } from 'zod';
import {
  CALLER_TOKEN_NAMES,
  ASSERTION_PUBLIC_KEY_NAMES,
  assertionPublicKeyEnv,
  boolEnv,
  callerTokenEnv,
  callerTokensOf,
  commaListEnv,
  databaseEnv,
  grpcServiceEnv,
  loadConfig,
  msEnv,
  processEnv,
  refusePublishedSecrets,
  requireAssertionKeyWithConsoleToken,
} from '@brand/shared/config';
import { checkDatabaseTls } from '@brand/shared/db';
import type { CallerTokens } from '@brand/shared/grpc';
import { BUSINESS_EVENTS_TOPIC, checkKafkaSecurity, kafkaSecurityEnv } from '@brand/shared/kafka';
import { checkRedisTls, redisTlsEnv } from '@brand/shared/redis';
import { secretKeyEnv } from '@brand/shared/secrets';
import {
  DELIVERY_HISTORY_RETENTION_DEFAULT_MS,
  RECOVERY_MAX_AGE_MS,
  RECOVERY_MAX_PER_REQUEST,
} from '@brand/shared/webhooks';

/** The roles one process can play; each can run as its own Deployment. */
const ROLES = ['admin', 'consumer', 'worker'] as const;

/** A 32-byte key given as base64 (`openssl rand -base64 32`). */
const secretKey = secretKeyEnv;

const WebhooksEnv = z
  .object({
    // Process: NODE_ENV, LOG_LEVEL, SHUTDOWN_GRACE_MS
    ...processEnv,
    /** Comma-separated roles of this process: admin (gRPC), consumer (Kafka), worker (delivery). */
    WEBHOOKS_ROLES: commaListEnv
      .pipe(z.array(z.enum(ROLES)).min(1, 'name at least one role'))
      .default([...ROLES]),
    // gRPC and the internal operations listener
    ...grpcServiceEnv({ grpc: 50053, metrics: 9467 }),
    // Caller credentials: every RPC requires one (docs/internals.md "Internal credentials").
    // Only the admin role answers RPCs (the others serve health alone), so only it needs them:
    // the delivery worker, the process that talks to every brand's receivers, holds none.
    ...callerTokenEnv,
    INTERNAL_TOKEN: callerTokenEnv.INTERNAL_TOKEN.optional(),
    ADMIN_TOKEN: callerTokenEnv.ADMIN_TOKEN.optional(),
    // The events feed's page streams (StreamFeedPages; docs/internals.md "The page hop")
    /** Pages one stream may have in flight; more are refused with service_unavailable at once. */
    PAGE_STREAM_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(10_000).default(256),
    // The console: records' Ed25519 public key checks member assertions (docs/console.md)
    ...assertionPublicKeyEnv,
    // PostgreSQL (and the health probe of it)
    ...databaseEnv,
    // Kafka (business events)
    KAFKA_BROKERS: commaListEnv.pipe(z.array(z.string()).min(1)).default(['127.0.0.1:9092']),
    KAFKA_CLIENT_ID: z.string().default('webhooks'),
    // Kafka TLS and SASL (docs/operating.md "Kafka security")
    ...kafkaSecurityEnv,
    /** The consumer group; every webhooks process of a deployment shares it. */
    KAFKA_CONSUMER_GROUP: z.string().min(1).default('brand-webhooks'),
    /** The topic consumed; the contract's name unless an operator (or a test) renames it. */
    BUSINESS_EVENTS_TOPIC: z.string().min(1).default(BUSINESS_EVENTS_TOPIC),
    /** Create the topic at startup when it is missing (partitions below). */
    KAFKA_ENSURE_TOPIC: boolEnv.default(true),
    KAFKA_TOPIC_PARTITIONS: z.coerce.number().int().min(1).max(1000).default(6),
    /** A crashed consumer's partitions move on after this (6 s is the brokers' minimum). */
    KAFKA_SESSION_TIMEOUT_MS: msEnv.default(6_000),
    /** Heartbeat period of the consumer: a third of the session or less. */
    KAFKA_HEARTBEAT_INTERVAL_MS: msEnv.default(1_000),
    /** How long a rebalance waits for live members to rejoin (a chunk's transaction fits). */
    KAFKA_REBALANCE_TIMEOUT_MS: msEnv.default(15_000),
    /** How often the consumer role checks a broker accepts connections (/readyz, /metrics). */
    KAFKA_PROBE_INTERVAL_MS: msEnv.default(2_000),
    // Redis: the events feed's versions (the gateway's 304; docs/api.md "Events")
    REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
    /** Prefix for every Redis key; the gateway's REDIS_KEY_PREFIX. */
    REDIS_KEY_PREFIX: z.string().default('brs:'),
    ...redisTlsEnv,
    /** How often feed heads that advanced recently are published again (a lost publish heals); 0: never. */
    FEED_VERSION_SWEEP_MS: z.coerce.number().int().min(0).default(1_000),
    /** How far back that sweep looks, in seconds. */
    FEED_VERSION_SWEEP_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
    // Receivers
    /** AES-256-GCM key sealing signing secrets at rest: 32 bytes, base64. */
    WEBHOOK_SECRET_KEY: secretKey,
    /** Former keys (comma-separated), still used to open secrets sealed before a rotation. */
    WEBHOOK_SECRET_KEYS_PREVIOUS: commaListEnv.pipe(z.array(secretKey)),
    /** Test-only: admit https receivers on 127.0.0.1, ::1 and localhost. Off by default. */
    WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: boolEnv.default(false),
    /** A PEM file of an extra CA to trust for receivers (a local test CA). */
    WEBHOOK_EXTRA_CA_FILE: z.string().optional(),
    /** Receivers one brand may have. */
    WEBHOOK_MAX_RECEIVERS_PER_BRAND: z.coerce.number().int().min(1).max(1000).default(10),
    // Delivery
    /**
     * Deliveries in flight per worker process to receivers that answer promptly (the shared
     * budget). 64: waiting on a receiver's answer costs a socket, and more answers together make
     * larger claims and outcome statements (S6: 1.15x the deliveries/s of 32; BENCHMARKS.md).
     */
    DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
    /** Deliveries in flight per receiver per worker, in any lane. */
    DELIVERY_PER_RECEIVER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
    /**
     * An attempt still waiting for its answer after this long leaves the shared budget for the slow
     * lane, and after 4 times as long (at most half DELIVERY_TIMEOUT_MS) for the hanging lane.
     */
    DELIVERY_SLOW_AFTER_MS: msEnv.default(500),
    /**
     * Attempts of slow receivers in the slow lane per worker, and as many of hanging ones in the
     * hanging lane (idle sockets: cheap).
     */
    DELIVERY_SLOW_LANE_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(256),
    /**
     * Attempts claimed or answered whose outcomes are not yet written, per worker, at most:
     * past it nothing more is claimed (an attempt frees its lane place when the receiver
     * answers). Above the two lanes' bounds (64 + 256), it binds only when recording lags.
     */
    DELIVERY_UNRECORDED_MAX: z.coerce.number().int().min(1).max(100_000).default(512),
    /** How long a claimed delivery is reserved; after that another worker may take it. */
    DELIVERY_LEASE_MS: msEnv.default(90_000),
    /** How often an idle worker looks for due deliveries. */
    DELIVERY_POLL_MS: msEnv.default(500),
    /**
     * Deliveries the consumer hands to the worker of its own process, to be claimed by primary
     * key (deliveryFeed.ts); 0 turns the feed off (every claim then scans the table).
     */
    DELIVERY_FEED_MAX: z.coerce.number().int().min(0).max(1_000_000).default(20_000),
    /**
     * Receivers (origins) whose keep-alive connections a worker keeps, the most recently
     * delivered to (send/receiverConnections.ts): the bound on its idle sockets over many
     * receivers (issue 64, S10: 10,000 receivers held 124 MB of live heap without it). An idle
     * TLS connection costs about 50 KB outside the heap (OpenSSL's) and 8 KB in it: 1,000 kept
     * held the webhooks process's RSS peak at 199 MB over S10's 10,000 receivers, 2,000 at 216.
     */
    DELIVERY_KEPT_RECEIVERS: z.coerce.number().int().min(1).max(100_000).default(1_000),
    DELIVERY_CONNECT_TIMEOUT_MS: msEnv.default(5_000),
    /** The whole attempt: connect, send, the answer's headers and a short body excerpt. */
    DELIVERY_TIMEOUT_MS: msEnv.default(30_000),
    /** Multiplies every retry delay (tests use 0.001 to run the schedule in milliseconds). */
    RETRY_TIME_SCALE: z.coerce.number().positive().max(1).default(1),
    /** A receiver without a 2xx for this long is disabled (5 days). */
    RECEIVER_DISABLE_AFTER_MS: msEnv.default(5 * 24 * 3600 * 1000),
    /** The owners get one "failing" mail after this many consecutive failed attempts... */
    RECEIVER_FAILING_ALERT_AFTER_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
    /** ...or when a failure comes this long after the run began (10 minutes), whichever first. */
    RECEIVER_FAILING_ALERT_AFTER_MS: msEnv.default(10 * 60_000),
    // Day 2: recovery, attempt detail, the maintenance sweep (docs/webhooks.md "Day 2")
    /** Failed deliveries one RecoverDeliveries request re-queues at most. */
    RECOVERY_MAX_PER_REQUEST: z.coerce
      .number()
      .int()
      .min(1)
      .max(RECOVERY_MAX_PER_REQUEST)
      .default(RECOVERY_MAX_PER_REQUEST),
    /** How long what each attempt sent and got back (headers, first 4 KB of the body) is kept. */
    ATTEMPT_DETAIL_RETENTION_MS: msEnv.default(14 * 24 * 3600 * 1000),
    /**
     * How long events, deliveries and attempts are kept after the event, a week partition at a
     * time (docs/operating.md "Delivery history"). At least the recovery window (14 days):
     * "Recover since" never reaches back past the history.
     */
    DELIVERY_HISTORY_RETENTION_MS: msEnv
      .refine((ms) => ms >= RECOVERY_MAX_AGE_MS, {
        message: 'must be at least 14 days (1209600000), the reach of Recover since',
      })
      .default(DELIVERY_HISTORY_RETENTION_DEFAULT_MS),
    /** How often the worker role sweeps: scheduled secret switches that came due, retentions. */
    MAINTENANCE_INTERVAL_MS: msEnv.default(10_000),
    /** Rows one sweep statement deletes at most (a pass runs up to 10 per table). */
    SWEEP_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(1_000),
    // The audit trail and its streams (issue 63; docs/console.md "Audit streams")
    /**
     * How often the worker role's audit loops look for work when none woke them: its own audit
     * outbox (the trail), and streams whose brand has entries they were not sent yet.
     */
    AUDIT_RELAY_POLL_MS: msEnv.default(500),
    /** Audit streams a brand may have; the next one is audit_stream_limit. */
    AUDIT_STREAMS_PER_BRAND: z.coerce.number().int().min(1).max(50).default(3),
    /**
     * Entries one delivery of a stream carries at most: 200 of at most ~2 KB each stays under
     * Splunk HEC's default 1 MB request (Datadog's intake takes 1,000 logs and 5 MB).
     */
    AUDIT_STREAM_BATCH_MAX: z.coerce.number().int().min(1).max(1_000).default(200),
  })
  .superRefine((env, ctx) => {
    if (env.WEBHOOKS_ROLES.includes('admin')) {
      for (const name of ['INTERNAL_TOKEN', 'ADMIN_TOKEN'] as const) {
        if (env[name] === undefined)
          ctx.addIssue({ code: 'custom', path: [name], message: 'is required by the admin role' });
      }
    }
    if (env.DELIVERY_LEASE_MS <= env.DELIVERY_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['DELIVERY_LEASE_MS'],
        message: 'must exceed DELIVERY_TIMEOUT_MS, or a slow attempt would be claimed twice',
      });
    }
    if (env.KAFKA_HEARTBEAT_INTERVAL_MS * 3 > env.KAFKA_SESSION_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['KAFKA_HEARTBEAT_INTERVAL_MS'],
        message: 'must be at most a third of KAFKA_SESSION_TIMEOUT_MS, or live members time out',
      });
    }
    if (env.NODE_ENV === 'production' && env.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_ALLOW_LOOPBACK_RECEIVERS'],
        message: 'is a test setting and must not be on in production',
      });
    }
  })
  .superRefine(checkKafkaSecurity)
  .superRefine(checkDatabaseTls)
  .superRefine(checkRedisTls)
  .superRefine(requireAssertionKeyWithConsoleToken('CONSOLE_ASSERTION_PUBLIC_KEY'))
  .superRefine(
    refusePublishedSecrets([
      ...CALLER_TOKEN_NAMES,
      ...ASSERTION_PUBLIC_KEY_NAMES,
      'WEBHOOK_SECRET_KEY',
      'WEBHOOK_SECRET_KEYS_PREVIOUS',
    ]),
  );

export type WebhooksConfig = z.infer<typeof WebhooksEnv>;

export const loadWebhooksConfig = (env: NodeJS.ProcessEnv): WebhooksConfig =>
  loadConfig(WebhooksEnv, env);

/**
 * The caller credentials this process checks: the admin role's, none for a process without
 * it (it registers no service that takes a credential, and has none to leak).
 */
export function callerTokensFor(config: WebhooksConfig): CallerTokens {
  const { INTERNAL_TOKEN, ADMIN_TOKEN } = config;
  if (!config.WEBHOOKS_ROLES.includes('admin') || !INTERNAL_TOKEN || !ADMIN_TOKEN)
    return { internal: [], admin: [], console: [] };
  return callerTokensOf({ ...config, INTERNAL_TOKEN, ADMIN_TOKEN });
}
