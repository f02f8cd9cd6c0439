import { Redis } from 'ioredis';
import { defineLiveFileProperty } from '../config/secretFiles';
import { connectionProblemOf } from '../errors/connectionProblem';
import type { Logger } from '../logger';
import { redisTlsOptions } from './tlsOptions';

export type { Redis };
export { checkRedisTls, redisTlsEnv, redisTlsOptions, type RedisTlsSettings } from './tlsOptions';
export { writeAtEndOfTurn } from './writesPerTurn';
export { digest, retryAfterSecondsOf, WindowCounter } from './windowCounter';

export interface RedisOptions {
  url: string;
  /** REDIS_TLS_CA_FILE: the CA a rediss:// server's certificate is checked against. */
  tlsCaFile?: string | undefined;
  /** REDIS_PASSWORD_FILE: the password, read at each connect (a rotation needs no restart). */
  passwordFile?: string | undefined;
  /** Shows in logs and in CLIENT LIST. */
  name: string;
  log: Logger;
  /** A command that takes longer fails (and the caller falls back), rather than stalling a request. */
  commandTimeoutMs?: number;
  /**
   * false for request-path clients: while disconnected, commands fail at once instead of
   * queueing, so a Redis outage costs no latency. true for the subscriber, whose
   * SUBSCRIBE may be issued before the first connect.
   */
  queueWhileOffline: boolean;
}

/**
 * An ioredis client that retries connecting forever with capped backoff and never
 * crashes the process: without an 'error' listener, ioredis would throw on the event.
 */
export function createRedisClient(opts: RedisOptions): Redis {
  const client = new Redis(opts.url, {
    connectionName: opts.name,
    enableOfflineQueue: opts.queueWhileOffline,
    maxRetriesPerRequest: opts.queueWhileOffline ? null : 1,
    commandTimeout: opts.commandTimeoutMs,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(100 * attempt, 2_000),
    // A write refused READONLY: this connection reached a primary since demoted (a failover
    // that moved the endpoint). Reconnect, so the next connection goes where it leads now; the
    // refused command fails as any Redis error does (its caller falls back).
    reconnectOnError: (err) => err.message.startsWith('READONLY'),
    tls: redisTlsOptions(opts.url, opts.tlsCaFile),
  });
  // ioredis reads options.password each time it connects (AUTH on every reconnect)
  if (opts.passwordFile) defineLiveFileProperty(client.options, 'password', opts.passwordFile);
  let down = false;
  client.on('error', (err: Error) => {
    const problem = connectionProblemOf(err);
    problems.set(client, problem);
    if (!down)
      opts.log.warn(
        { err: err.message, redis: opts.name, ...(problem ? { problem } : {}) },
        'redis connection failed',
      );
    down = true;
  });
  client.on('ready', () => {
    problems.delete(client);
    if (down) opts.log.info({ redis: opts.name }, 'redis connection restored');
    down = false;
  });
  return client;
}

/** The last connection problem of each client (a refused certificate or password). */
const problems = new WeakMap<Redis, string | undefined>();

/**
 * Why a client is not connected, for readiness: "tls: ..." or "authentication failed" when
 * that is what the server said, else undefined (down, or connected).
 */
export function redisProblemOf(client: Redis): string | undefined {
  return client.status === 'ready' ? undefined : problems.get(client);
}

/**
 * A client's state as a gRPC service's /readyz and dependency_up report it (listenGrpcService's
 * `dependencies`), from the connection state the gateway and the console read too: "ok" while
 * connected, else what the server refused ("tls: ...", "authentication failed") or "unreachable".
 */
export function redisDependencyState(client: Redis): string {
  return client.status === 'ready' ? 'ok' : (problems.get(client) ?? 'unreachable');
}

/** Quits politely, or disconnects if Redis is unreachable (QUIT would wait for it). */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    await client.quit().catch(() => client.disconnect());
  } else {
    client.disconnect();
  }
}

/**
 * Resolves true once the client is connected, or false after `timeoutMs`. For startup:
 * serving before the first connection would send the first requests to the fallback path.
 */
export function waitUntilReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const onReady = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    client.once('ready', onReady);
  });
}
