import { idPrefix, type IdKind } from '../ids';
import type { ResourceName } from './resourceNames';

/** The id kind of each resource's records (ids/index.ts holds the prefixes: cmp_, sub_, ...). */
const RECORD_ID_KINDS: Readonly<Record<ResourceName, IdKind>> = {
  campaigns: 'campaign',
  submissions: 'submission',
  payouts: 'payout',
  deposits: 'deposit',
  conversions: 'conversion',
  links: 'link',
};

/** The longest id a record path accepts: ours are a prefix and 20 characters, far below it. */
export const MAX_RECORD_ID_LENGTH = 64;

/** The characters of every id we mint (a prefix, `_`, base62). */
const ID_SHAPED = new RegExp(`^[A-Za-z0-9_]{1,${MAX_RECORD_ID_LENGTH}}$`);
const BASE62_TAIL = /^[A-Za-z0-9]+$/;

/** Client-facing message for an id that cannot be one (REST and the records service say the same). */
export const RECORD_ID_MESSAGE = `id must be a record id: at most ${MAX_RECORD_ID_LENGTH} characters of A-Z, a-z, 0-9 and _, e.g. po_3kTMd9Q0bXh7RzL2aP1c.`;

/**
 * What the `{id}` of GET /api/v1/{resource}/{id} is (docs/api.md, "One record by id"):
 * - `candidate`: shaped like one of this resource's ids (`po_` and base62 for payouts): it
 *   is looked up, and is found or not_found;
 * - `elsewhere`: shaped like an id, but not of this resource (`cmp_...` under payouts): no
 *   record of the resource can have it, so it is not_found without a lookup (its prefix is
 *   all that decides, and the prefixes are public: nothing about any brand's data shows);
 * - `malformed`: not an id at all (empty, longer than MAX_RECORD_ID_LENGTH, other
 *   characters): 400 invalid_parameter, so a client's bug (a URL built from the wrong
 *   variable) is told apart from a record that is not there.
 */
export type RecordIdShape = 'candidate' | 'elsewhere' | 'malformed';

export function recordIdShape(resource: ResourceName, id: string): RecordIdShape {
  if (!ID_SHAPED.test(id)) return 'malformed';
  const prefix = idPrefix(RECORD_ID_KINDS[resource]);
  return id.startsWith(prefix) && BASE62_TAIL.test(id.slice(prefix.length))
    ? 'candidate'
    : 'elsewhere';
}
