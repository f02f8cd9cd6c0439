import { DEFAULT_LIMIT } from '@brand/shared/resources';
import type { EventsParams } from './input';
import { strongEtag } from '../../http/conditional';

/**
 * Bumped by hand when the bytes of a feed page change for a reason no feed version sees (a
 * new field, another rendering), so that no client keeps an old body under a matching tag.
 */
const REPRESENTATION = '2'; // 2: pages state the feed's head (issue 62)

/**
 * A feed page's entity tag: a hash over the brand, the normalized query and the brand's
 * feed version (the position of its newest event), which the webhooks consumer publishes to
 * Redis after every commit that adds events and the gateway reads in admission's rate-limit
 * round trip. A matching poll is 304 with no call to webhooks and no query, as a list's
 * (v1ResourcesList/conditional.ts). A page is read in the snapshot its version came from
 * (feedRepo.ts), so the tag names exactly what it holds; events dropped by retention leave
 * the tag as it was (a held page may still show them; its next event retags it). `events`
 * keeps the tag from ever equalling a list's or a record's.
 */
export function eventsEtag(brandId: string, params: EventsParams, version: string): string {
  const query = [
    params.limit ?? DEFAULT_LIMIT,
    params.cursor ?? '',
    params.after ?? '',
    params.types.join(','),
    params.recordId ?? '',
    params.since ?? '',
    params.until ?? '',
  ].join('\n');
  return strongEtag(`${REPRESENTATION}\nevents\n${brandId}\n${query}\n${version}`);
}
