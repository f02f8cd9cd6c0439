import { SCIMMY } from 'scimmy-routers';
import { PlacesByKey } from '../http/placesByKey';

/*
 * A SCIM list as records pages it. A provider's import walks GET /Users?startIndex=1&count=100,
 * then 101, … through the directory: each request asks records for its page and the list's total
 * (ListScimUsers' start_index, count, total_results), so it reads one page, and no gRPC answer
 * holds a whole enterprise directory (20,000 users of long names are ~29 MB, past the client's
 * 16 MiB: the list failed outright). A filter records cannot evaluate, or a sortBy, is still
 * applied in the console by scimmy, over a directory of at most MAX_FILTERED (400 tooMany above),
 * read from records in chunks.
 */

/** Requests and lists are bounded: a page holds at most this many resources. */
export const MAX_PAGE = 200;
/** scimmy's page when the request names no count (its ListResponse's default). */
const DEFAULT_COUNT = 20;
/**
 * The largest list the console filters or sorts itself (scimmy's filter.match over all of it):
 * the rest are refused 400 tooMany (RFC 7644 3.4.2.2), which the provider narrows with a lookup
 * records makes (userName, externalId or displayName eq) or walks unfiltered.
 */
export const MAX_FILTERED = 10_000;
/**
 * The most group members such a list may hold, all its groups together (a hostile review of
 * 2026-12-01): 10,000 groups of up to 20,000 members each is far more than the console's memory,
 * shared by every brand; ten groups of 20,000 took 250 MB and 7 s of its thread. Past it the
 * list is refused 400 tooMany naming excludedAttributes=members (then read without members).
 */
const MAX_FILTERED_MEMBERS = 50_000;

/**
 * The lists the console filters or sorts itself that one brand may have read at once in this
 * console process (a hostile review of 2026-12-01): one such list of 10,000 users of long names
 * took 235 MB and 9 s, eight at once from one token 955 MB, five of them answered 503, while the
 * per-token rate limit admits 3,000 a minute. Past it: 429 with Retry-After, which providers
 * wait out and send again.
 */
const FILTERED_LISTS_PER_BRAND = 1;
const filteredListsByBrand = new PlacesByKey(FILTERED_LISTS_PER_BRAND);
const FILTERED_LIST_RETRY_AFTER_S = 5;

/**
 * Runs `read` (a list filtered or sorted here) within its brand's FILTERED_LISTS_PER_BRAND;
 * past it refuses at once, noting 429 and Retry-After on the request's context (the endpoint
 * answers scimmy's 500 with them, as it does records' rate limit).
 */
export async function filteredListOf<T>(
  brandId: string,
  ctx: { override?: { status: 429 | 503; retryAfterSeconds: number } },
  read: () => Promise<T>,
): Promise<T> {
  return filteredListsByBrand.run(brandId, read, () => {
    ctx.override = { status: 429, retryAfterSeconds: FILTERED_LIST_RETRY_AFTER_S };
    throw new SCIMMY.Types.Error(
      500,
      null as unknown as string,
      `Another list of this directory filtered or sorted by the console is being read; try again in ${FILTERED_LIST_RETRY_AFTER_S} seconds, or look resources up by name or id (eq), or list them without a filter or sortBy.`,
    );
  });
}

/** The paging a list request names, as scimmy parsed it (resource.constraints). */
export interface Constraints {
  sortBy?: string;
  sortOrder?: string;
  startIndex?: number;
  count?: number;
  totalResults?: number;
}

/** A window of records' list: from the 1-based start_index, at most count (0: the total only). */
export interface RecordsWindow {
  start_index: number;
  count: number;
}

/** What records answered for a window: its rows and the list's total (0 from an older records). */
export interface RecordsAnswer<T> {
  rows: T[];
  total: number;
}

/**
 * The furthest start records is asked for: start_index is a uint32, and no directory comes near
 * it. A startIndex past it (2^32, 1e10) reads the same empty page: it encoded as nothing and was
 * answered 503 (an outside probe, 2026-11-30).
 */
const MAX_START = 2 ** 32 - 1;

/** The page a request asks for: scimmy clamps startIndex to >= 1 and count to >= 0. */
export function pageOf(constraints: Constraints | undefined): { start: number; count: number } {
  return {
    start: Math.min(Math.floor(constraints?.startIndex ?? 1), MAX_START),
    count: Math.min(constraints?.count ?? DEFAULT_COUNT, MAX_PAGE),
  };
}

/**
 * The window of records' list to ask for a page. scimmy's ListResponse, given the page and the
 * total, still slices off startIndex - 1 rows whenever it holds at least startIndex of them and
 * they do not end at the total (a heuristic for "not sliced yet"): a page from 2 to count would
 * lose its head. So such a page (at most MAX_PAGE in, so at most 2 × MAX_PAGE + 1 rows) is read
 * from the list's first row, one more than needed, and arranged by pageForScimmy; any other page
 * is read as it is: at startIndex 1 the slice is none, and past count the page is shorter than
 * startIndex.
 */
export function windowFor(page: { start: number; count: number }): RecordsWindow {
  return page.start >= 2 && page.start <= page.count
    ? { start_index: 1, count: page.start + page.count }
    : { start_index: page.start, count: page.count };
}

/**
 * What to hand scimmy's ListResponse so it answers exactly the rows start .. start + count - 1
 * of a list of `total`, from records' answer to windowFor(page): the rows as they came, or for a
 * page read from the first row, the first start - 1 + count of them (start - 1 sliced off by
 * scimmy, the rest cut to count), unless that many ending exactly start - 1 short of the total
 * would make scimmy take them for sliced already: then one more (there is one, see below).
 */
export function rowsForScimmy<T>(
  page: { start: number; count: number },
  rows: readonly T[],
  total: number,
): T[] {
  if (windowFor(page).start_index === page.start) return [...rows];
  // Nothing at start: handed anything, scimmy would answer the list's head.
  if (rows.length < page.start) return [];
  const needed = Math.min(rows.length, page.start - 1 + page.count);
  // total === needed + start - 1 with start >= 2 means total > needed, so rows holds one more.
  return total === needed + page.start - 1 ? rows.slice(0, needed + 1) : rows.slice(0, needed);
}

/** scimmy's parsed attributes or excludedAttributes: one alternative, { attribute: ['pr'|'np'] }. */
type AttributeFilter = readonly Record<string, unknown>[];

const GROUP_URN = 'urn:ietf:params:scim:schemas:core:2.0:group:';
const isOnly = (v: unknown, op: string) => Array.isArray(v) && v.length === 1 && v[0] === op;

/**
 * Whether a group list's answer leaves members out, so records need not read them: excluded
 * (`excludedAttributes=members`, as Entra ID lists groups), or attributes asked for that name
 * no member (`attributes=displayName`). Anything else (members.value, a sub-attribute of
 * another) reads them.
 */
export function membersLeftOut(attributes: AttributeFilter | undefined): boolean {
  if (!attributes || attributes.length !== 1) return false;
  const entries = Object.entries(attributes[0]!).map(
    ([name, op]) => [name.toLowerCase().replace(GROUP_URN, ''), op] as const,
  );
  if (entries.some(([name, op]) => name === 'members' && isOnly(op, 'np'))) return true;
  return (
    entries.length > 0 && entries.every(([name, op]) => name !== 'members' && isOnly(op, 'pr'))
  );
}

/** An answer from records before paging: every row, and total_results left 0. */
export const fromOlderRecords = (answer: RecordsAnswer<unknown>): boolean =>
  answer.total === 0 && answer.rows.length > 0;

/** A list larger than the console filters or sorts itself (RFC 7644 3.12 tooMany). */
function tooMany(total: number, kind: 'users' | 'groups'): Error {
  // scimmy allows tooMany only with 413 (its bulk limit): the endpoint answers it 400, as RFC
  // 7644 3.12 does a filter's (answerAndLog in scimEndpoint.ts).
  return new SCIMMY.Types.Error(
    413,
    'tooMany',
    `The directory holds ${total} ${kind}, more than the ${MAX_FILTERED} this filter or sortBy can be applied to: look ${kind} up by ${kind === 'users' ? 'userName, externalId' : 'displayName'} or id (eq), or list them without a filter or sortBy.`,
  );
}

/**
 * Every row of a list of at most MAX_FILTERED, read in windows of `chunk` (each gRPC answer
 * bounded); refused tooMany past it, before reading more than the first window. A row written
 * or deleted during the read may be missed or seen twice (kept once, by id): as a provider's own
 * walk of pages would.
 */
export async function readAllBounded<T extends { id: string; members?: readonly unknown[] }>(
  read: (window: RecordsWindow) => Promise<RecordsAnswer<T>>,
  chunk: number,
  kind: 'users' | 'groups',
): Promise<T[]> {
  let members = 0;
  const counted = (rows: readonly T[]) => {
    for (const r of rows) members += r.members?.length ?? 0;
    if (members > MAX_FILTERED_MEMBERS) throw tooManyMembers();
  };
  const first = await read({ start_index: 1, count: chunk });
  counted(first.rows);
  if (fromOlderRecords(first)) return first.rows;
  if (first.total > MAX_FILTERED) throw tooMany(first.total, kind);
  const byId = new Map(first.rows.map((r) => [r.id, r]));
  let start = 1 + first.rows.length;
  let last = first;
  while (last.rows.length === chunk && start <= Math.min(last.total, MAX_FILTERED)) {
    last = await read({ start_index: start, count: chunk });
    counted(last.rows);
    for (const r of last.rows) byId.set(r.id, r);
    start += last.rows.length;
  }
  return [...byId.values()];
}

/** Groups whose members together are more than the console filters or sorts with them. */
function tooManyMembers(): Error {
  return new SCIMMY.Types.Error(
    413,
    'tooMany',
    `The groups hold more than the ${MAX_FILTERED_MEMBERS} members this filter or sortBy can be applied with: send excludedAttributes=members (the filter and sortBy not naming members), look groups up by displayName or id (eq), or list them without a filter or sortBy.`,
  );
}
