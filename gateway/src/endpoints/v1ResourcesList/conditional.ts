import { DEFAULT_LIMIT, normalizeSince, type ResourceName } from '@brand/shared/resources';
import type { ListParams } from '../../records/listParams';
import { strongEtag } from '../../http/conditional';

/**
 * Conditional list requests (issue 18): a strong ETag of exactly what a page holds, and the
 * If-None-Match check, decided from the brand's change version of the resource, which
 * records advances in the same transaction as every write of such a record and the gateway
 * reads in admission's rate-limit round trip. A matching poll costs no records call and no
 * PostgreSQL query.
 */

/**
 * Bumped by hand when the bytes of a page change for a reason no change version sees (a new
 * field, another rendering), so that no client keeps an old body under a still-matching tag.
 */
const REPRESENTATION = '1';

/**
 * The page's entity tag: a hash over the brand, the resource, the normalised query (the limit
 * it resolves to, the cursor, the since filter in its canonical form) and the change version.
 * Any write of any record of the resource moves the version, so every page of the resource,
 * on any gateway, gets a new tag, whichever record changed. Strong: a page's bytes follow from
 * what the tag hashes (the version is read before the page, so the page holds at least what it
 * names; a write still being published may already show, and its publish changes the tag).
 */
export function listEtag(
  brandId: string,
  resource: ResourceName,
  params: ListParams,
  version: string,
): string {
  const since = params.since === undefined ? '' : (normalizeSince(params.since) ?? params.since);
  return strongEtag(
    `${REPRESENTATION}\n${brandId}\n${resource}\n${params.limit ?? DEFAULT_LIMIT}\n${params.cursor ?? ''}\n${since}\n${version}`,
  );
}
