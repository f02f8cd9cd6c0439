import type { Pool } from '@brand/shared/db';
import { publishChangeVersions, type ChangeVersion } from '@brand/shared/changeVersions';
import type { Logger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import type { ResourceName } from '@brand/shared/resources';
import { selectBrandVersions, selectRecentVersions } from './versionRepo';

/** Publishes change versions to Redis, where the gateway reads them (issue 18). */
export interface VersionPublisher {
  /**
   * After a write commits: publishes the versions it left (read after the commit), before the
   * write's caller is answered, so whoever saw the write succeed sees a new ETag. Never
   * rejects: a failed publish is logged, and the sweep publishes it again within seconds.
   */
  publish(versions: readonly ChangeVersion[]): Promise<void>;
  /** The same for writes that did not read their versions: reads the current ones first. */
  published(brandId: string, resources: readonly ResourceName[]): Promise<void>;
  /** Stops the sweep. */
  stop(): void;
}

export interface VersionPublisherOptions {
  pool: Pool;
  redis: Redis;
  keyPrefix: string;
  log: Logger;
  /** How often the sweep re-publishes recent versions; 0 turns the sweep off. */
  sweepMs: number;
  /** How far back the sweep looks. */
  windowSeconds: number;
}

/** At most this many versions per sweep, in Redis calls of CHUNK keys each. */
const SWEEP_MAX = 20_000;
const CHUNK = 500;

/**
 * The publisher and its sweep. The sweep re-publishes every version changed within the
 * window, so a publish lost between commit and SET (records crashed, Redis was restarting,
 * a writer that is not this service: fixtures, psql) reaches Redis within `sweepMs`.
 * Publishing never moves a key back (publishChangeVersions), so the sweep cannot undo a
 * newer publish. A Redis restarted empty is repaired key by key by the gateways (a miss
 * serves the full page and writes back the version records returned with it).
 */
export function startVersionPublisher(opts: VersionPublisherOptions): VersionPublisher {
  const publish = async (versions: readonly ChangeVersion[]): Promise<void> => {
    for (let i = 0; i < versions.length; i += CHUNK)
      await publishChangeVersions(opts.redis, opts.keyPrefix, versions.slice(i, i + CHUNK));
  };
  let sweeping = false;
  let failing = false;
  const sweep = async (): Promise<void> => {
    if (sweeping) return;
    sweeping = true;
    try {
      await publish(await selectRecentVersions(opts.pool, opts.windowSeconds, SWEEP_MAX));
      if (failing) opts.log.info('change versions published again');
      failing = false;
    } catch (err) {
      if (!failing) opts.log.warn({ err }, 'change-version sweep failed; retrying');
      failing = true;
    } finally {
      sweeping = false;
    }
  };
  const timer = opts.sweepMs > 0 ? setInterval(() => void sweep(), opts.sweepMs) : undefined;
  timer?.unref();
  const publishOrLog = async (versions: () => Promise<readonly ChangeVersion[]>): Promise<void> => {
    try {
      await publish(await versions());
    } catch (err) {
      opts.log.warn({ err }, 'change version not published; the sweep will');
    }
  };
  return {
    publish: (versions) => publishOrLog(() => Promise.resolve(versions)),
    published: (brandId, resources) =>
      publishOrLog(() => selectBrandVersions(opts.pool, brandId, resources)),
    stop: () => clearInterval(timer),
  };
}
