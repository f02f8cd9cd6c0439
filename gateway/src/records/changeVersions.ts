import { publishChangeVersions } from '@brand/shared/changeVersions';
import type { Logger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import type { ResourceName } from '@brand/shared/resources';

/** Writes back a change version Redis did not have (issue 18; docs/api.md "Polling"). */
export interface ChangeVersionRepair {
  /**
   * After a full page served on a missing key (Redis restarted empty, or a brand's first
   * page): stores the version records read before that page, never over a greater one
   * (publishChangeVersions), so the next poll can be answered 304. Fire and forget. `events`
   * is the events feed's version (v1EventsList/page.ts).
   */
  repair(brandId: string, resource: ResourceName | 'events', version: string): void;
}

export function changeVersionRepair(
  redis: Redis,
  keyPrefix: string,
  log: Logger,
): ChangeVersionRepair {
  return {
    repair(brandId, resource, version) {
      publishChangeVersions(redis, keyPrefix, [{ brandId, resource, version }]).catch(
        (err: unknown) => log.debug({ err }, 'change version not written back'),
      );
    },
  };
}
