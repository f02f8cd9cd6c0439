import {
  publishChangeVersions,
  startChangeVersionSweep,
  type ChangeVersion,
} from '@brand/shared/changeVersions';
import type { Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import type { FeedVersion } from './eventRepo';

/**
 * The change-version "resource" of a brand's events feed: the gateway reads
 * `rv:<brand>:events` in its rate-limit round trip, as it reads a list's version, and answers
 * a matching If-None-Match of a feed page with 304 before any call to this service.
 */
const FEED_VERSION_RESOURCE = 'events';

/** At most this many heads per sweep. */
const SWEEP_MAX = 20_000;

const asChangeVersion = (v: FeedVersion): ChangeVersion => ({
  ...v,
  resource: FEED_VERSION_RESOURCE,
});

/**
 * Publishes the feed versions a committed chunk advanced (never moving a key back:
 * publishChangeVersions), after the database commit and before the Kafka offset commit. A
 * Redis failure is logged, never thrown: the feed is still right. What such a failure, or a
 * crash between the commit and the SET, leaves unpublished, the sweep below publishes within a
 * second; until then a follower at the old head is answered 304 (before the sweep, until the
 * brand's next event: for a quiet brand, days).
 */
export function feedVersionPublisher(
  redis: Redis,
  keyPrefix: string,
  log: Logger,
): (versions: readonly FeedVersion[]) => Promise<void> {
  return async (versions) => {
    try {
      await publishChangeVersions(redis, keyPrefix, versions.map(asChangeVersion));
    } catch (err) {
      log.warn(
        { err, brands: versions.length },
        'events feed versions not published; the sweep will',
      );
    }
  };
}

/** Re-publishes, every `everyMs`, the heads of the feeds that advanced within `windowSeconds`. */
export function startFeedVersionSweep(opts: {
  pool: Pool;
  redis: Redis;
  keyPrefix: string;
  log: Logger;
  everyMs: number;
  windowSeconds: number;
}): () => void {
  return startChangeVersionSweep({
    ...opts,
    label: 'events feed versions',
    recent: async () => {
      const { rows } = await opts.pool.query<{ brand_id: string; last_seq: string }>(
        `select brand_id, last_seq from event_feed_heads
          where advanced_at > now() - make_interval(secs => $1)
          order by advanced_at desc limit $2`,
        [opts.windowSeconds, SWEEP_MAX],
      );
      return rows.map((r) => asChangeVersion({ brandId: r.brand_id, version: r.last_seq }));
    },
  });
}
