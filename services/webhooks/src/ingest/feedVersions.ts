import { publishChangeVersions } from '@brand/shared/changeVersions';
import type { Logger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import type { FeedVersion } from './eventRepo';

/**
 * The change-version "resource" of a brand's events feed: the gateway reads
 * `rv:<brand>:events` in its rate-limit round trip, as it reads a list's version, and answers
 * a matching If-None-Match of a feed page with 304 before any call to this service.
 */
const FEED_VERSION_RESOURCE = 'events';

/**
 * Publishes the feed versions a committed chunk advanced (never moving a key back:
 * publishChangeVersions). Called after the database commit and before the Kafka offset
 * commit, so a crash between the two replays the chunk (its events are duplicates then and
 * advance nothing): the version of that chunk stays unpublished until the brand's next
 * event, or until a gateway serving a page writes back the version the page carried. A
 * Redis failure is logged, never thrown: the feed is still right, only its 304s wait.
 */
export function feedVersionPublisher(
  redis: Redis,
  keyPrefix: string,
  log: Logger,
): (versions: readonly FeedVersion[]) => Promise<void> {
  return async (versions) => {
    try {
      await publishChangeVersions(
        redis,
        keyPrefix,
        versions.map((v) => ({ ...v, resource: FEED_VERSION_RESOURCE })),
      );
    } catch (err) {
      log.warn({ err, brands: versions.length }, 'events feed versions not published');
    }
  };
}
