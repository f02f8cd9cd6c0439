import { z } from 'zod';
import { boolEnv, logLevelEnv, msEnv, optionalEnv, portEnv } from './envTypes';

/**
 * The listen addresses of a gRPC service, to spread into its Env schema: loopback by
 * default (a container or pod sets 0.0.0.0 explicitly), and the internal operations
 * listener (/metrics) on its own port.
 */
export function grpcServiceEnv(ports: { grpc: number; metrics: number }) {
  return {
    GRPC_HOST: z.string().default('127.0.0.1'),
    GRPC_PORT: portEnv.default(ports.grpc),
    /** The internal operations listener (/metrics); loopback unless a pod opens it. */
    METRICS_HOST: z.string().default('127.0.0.1'),
    METRICS_PORT: portEnv.default(ports.metrics),
  };
}

/** A service's PostgreSQL settings; each service owns one schema in that database. */
export const databaseEnv = {
  /** postgres://…; sslmode has libpq's meaning (docs/operating.md "Verified TLS to PostgreSQL"). */
  DATABASE_URL: z.string().url(),
  /** PEM file of the CA for sslmode=verify-full or verify-ca (PGSSLROOTCERT's meaning). */
  DATABASE_SSL_CA_FILE: optionalEnv(z.string().min(1)),
  /**
   * A file holding the password of DATABASE_URL's user (a mounted Secret key), read at each
   * new connection and again once it changed: a rotated password needs no restart. The URL
   * then carries no password.
   */
  DATABASE_PASSWORD_FILE: optionalEnv(z.string().min(1)),
  /** Connections per process. */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  /** Below the gateway's gRPC deadline, so an unreachable database is a clean 503. */
  DATABASE_CONNECT_TIMEOUT_MS: msEnv.default(1_500),
  /** Server-side cap on any one statement. */
  DATABASE_STATEMENT_TIMEOUT_MS: msEnv.default(5_000),
  /** Apply pending migrations at startup (the local stack and tests run them separately). */
  MIGRATE_ON_START: boolEnv.default(false),
  /** How often the database is probed for the gRPC health status. */
  HEALTH_PROBE_INTERVAL_MS: msEnv.default(5_000),
};

/** Settings every process has. */
export const processEnv = {
  NODE_ENV: z.string().default('development'),
  LOG_LEVEL: logLevelEnv.default('info'),
  /** How long in-flight work may finish after SIGTERM. */
  SHUTDOWN_GRACE_MS: msEnv.default(10_000),
};
