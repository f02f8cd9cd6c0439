import type { ResourceName } from '@brand/shared/resources';
import { strongEtag } from '../../http/conditional';

/**
 * Bumped by hand when the bytes of a record change for a reason no change version sees (a
 * new field, another rendering), so that no client keeps an old body under a matching tag.
 */
const REPRESENTATION = '1';

/**
 * A record's entity tag: a hash over the brand, the resource, the id and the brand's change
 * version of the resource (the lists' version, docs/api.md "Polling"), so a matching
 * If-None-Match is answered 304 from the version admission already read, without a records
 * call or a query. Records advances the version in the same transaction as every write of a
 * record of the resource, this one's status change included, so a changed record never
 * keeps its tag. Strong: the bytes follow from what it hashes (the version is read before the
 * record, as for a page). The price of deciding without the record: any write of another
 * record of the same resource gives this one a new tag too (a 200 with the same body), which
 * is a busy resource's common case; a hash of the record would need the record to decide.
 * `record` keeps a record's tag from ever equalling a page's (v1ResourcesList/conditional.ts).
 */
export function recordEtag(
  brandId: string,
  resource: ResourceName,
  id: string,
  version: string,
): string {
  return strongEtag(`${REPRESENTATION}\nrecord\n${brandId}\n${resource}\n${id}\n${version}`);
}
