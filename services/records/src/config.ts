import { z } from 'zod';
import {
  boolEnv,
  callerTokenEnv,
  commaListEnv,
  loadConfig,
  logLevelEnv,
  msEnv,
  portEnv,
  refusePublishedSecrets,
} from '@brand/shared/config';

export const RecordsEnv = z
  .object({
    NODE_ENV: z.string().default('development'),
    // gRPC
    /** Loopback by default: a container or pod sets 0.0.0.0 explicitly. */
    GRPC_HOST: z.string().default('127.0.0.1'),
    GRPC_PORT: portEnv.default(50051),
    /** The internal operations listener (/metrics); loopback unless a pod opens it. */
    METRICS_HOST: z.string().default('127.0.0.1'),
    METRICS_PORT: portEnv.default(9465),
    // Caller credentials: every RPC requires one (README "Internal credentials")
    ...callerTokenEnv,
    // PostgreSQL
    DATABASE_URL: z.string().url(),
    /** Connections per process. */
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
    /** Below the gateway's gRPC deadline, so an unreachable database is a clean 503. */
    DATABASE_CONNECT_TIMEOUT_MS: msEnv.default(1_500),
    DATABASE_STATEMENT_TIMEOUT_MS: msEnv.default(5_000),
    /** Apply pending migrations at startup (the local stack and tests run them separately). */
    MIGRATE_ON_START: boolEnv.default(false),
    // Redis (revocation announcements)
    REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
    /** Prefix for every Redis key and channel; lets several stacks share one Redis. */
    REDIS_KEY_PREFIX: z.string().default('brs:'),
    // Pagination
    /** HMAC key for next_cursor values; at least 32 characters. */
    CURSOR_SECRET: z.string().min(32),
    /** Comma-separated former secrets still accepted while clients finish their walks. */
    CURSOR_SECRETS_PREVIOUS: commaListEnv,
    // Process
    LOG_LEVEL: logLevelEnv.default('info'),
    /** How long in-flight calls may finish after SIGTERM. */
    SHUTDOWN_GRACE_MS: msEnv.default(10_000),
    /** How often the database is probed for the gRPC health status. */
    HEALTH_PROBE_INTERVAL_MS: msEnv.default(5_000),
  })
  .superRefine(
    refusePublishedSecrets([
      'INTERNAL_TOKEN',
      'INTERNAL_TOKENS_PREVIOUS',
      'ADMIN_TOKEN',
      'ADMIN_TOKENS_PREVIOUS',
      'CURSOR_SECRET',
      'CURSOR_SECRETS_PREVIOUS',
    ]),
  );

export type RecordsConfig = z.infer<typeof RecordsEnv>;

export const loadRecordsConfig = (env: NodeJS.ProcessEnv): RecordsConfig =>
  loadConfig(RecordsEnv, env);
