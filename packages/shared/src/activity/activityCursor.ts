import { createHash } from 'node:crypto';
import { isCalendarInstant } from '../db/keysetCursor';
import { AppError } from '../errors/appError';
import type { ActivityFilters, ActivityListing, ActivityPosition } from './activityTypes';

const ACTIVITY_ID = /^act_[A-Za-z0-9]{1,64}$/;
const BRAND_ID = /^br_[A-Za-z0-9]{1,64}$/;
/** Says which walk a cursor belongs to, so another listing's cursor is never read as ours. */
const KIND = 'activity';

/**
 * The filters as one short word: a cursor from the same log read with other filters is a
 * cursor of another listing (its position means "after this row of those results").
 */
function filtersDigest(f: ActivityFilters): string {
  const canonical = [
    f.actorMemberId ?? '',
    f.actorEmail ?? '',
    f.action ?? '',
    f.actionPrefix ?? '',
    f.subjectId ?? '',
    f.since?.toISOString() ?? '',
    f.until?.toISOString() ?? '',
  ].join('\n');
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 12);
}

/**
 * A cursor: base64url JSON of the listing it continues (its kind, its brand, the digest of
 * its filters) and the exact (created_at, id) of the row the page ended on. The three
 * services' logs share this order and activity ids are unique across them, so one position
 * serves all three: the console passes its merged cursor to each. Not signed: the brand comes
 * from the request (checked against the caller), so a forged cursor only moves the starting
 * point within a log the caller may read anyway; the binding makes a cursor used elsewhere a
 * clear refusal instead of a silently wrong page (issue 42: brand C's cursor was read on B).
 */
export function encodeActivityCursor(listing: ActivityListing, last: ActivityPosition): string {
  const payload = [KIND, listing.brandId, filtersDigest(listing.filters), last.created_at, last.id];
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

const refusal = (message: string) =>
  new AppError('invalid_cursor', `cursor: ${message}`, {
    details: [{ field: 'cursor', message }],
  });

/**
 * The position a cursor names within `listing`, or invalid_cursor: for anything that is not an
 * activity cursor, for one issued for another brand, and for one of the same brand's log
 * read with other filters. Never a 500.
 */
export function decodeActivityCursor(listing: ActivityListing, cursor: string): ActivityPosition {
  const notOurs = () => refusal('not a cursor this listing issued (pass it as given).');
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw notOurs();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw notOurs();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 5 ||
    !parsed.every((p) => typeof p === 'string') ||
    parsed[0] !== KIND
  ) {
    throw notOurs();
  }
  const [, brandId, digest, at, id] = parsed;
  if (!BRAND_ID.test(brandId!) || !isCalendarInstant(at!)) throw notOurs();
  if (!ACTIVITY_ID.test(id!)) throw notOurs();
  if (brandId !== listing.brandId) {
    throw refusal('belongs to another brand’s activity; start again from the newest page.');
  }
  if (digest !== filtersDigest(listing.filters)) {
    throw refusal(
      'belongs to another listing (other filters); start again from the newest page of this one.',
    );
  }
  return { created_at: at!, id: id! };
}
