import type { Pool } from '@brand/shared/db';
import {
  publishInChunks,
  startChangeVersionSweep,
  type ChangeVersion,
} from '@brand/shared/changeVersions';
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

/** At most this many versions per sweep. */
const SWEEP_MAX = 20_000;

/**
 * The publisher and its sweep (startChangeVersionSweep): the sweep re-publishes every version
 * changed within the window, so a publish lost between commit and SET (records crashed, Redis
 * was restarting, a writer that is not this service: fixtures, psql) reaches Redis within
 * `sweepMs`. A Redis restarted empty is repaired key by key by the gateways (a miss serves the
 * full page and writes back the version records returned with it).
 */
export function startVersionPublisher(opts: VersionPublisherOptions): VersionPublisher {
  const publish = (versions: readonly ChangeVersion[]): Promise<void> =>
    publishInChunks(opts.redis, opts.keyPrefix, versions);
  const stop = startChangeVersionSweep({
    redis: opts.redis,
    keyPrefix: opts.keyPrefix,
    log: opts.log,
    everyMs: opts.sweepMs,
    recent: () => selectRecentVersions(opts.pool, opts.windowSeconds, SWEEP_MAX),
    label: 'change versions',
  });
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
    stop,
  };
}
