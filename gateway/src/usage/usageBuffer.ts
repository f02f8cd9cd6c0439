import type { RefusedRequest, UsageCount, UsageSurface } from '@brand/proto/access/v1/usage';
import { clientAddressKey } from '@brand/shared/httpServer';

/** Who a count is attributed to (records resolves a key hash and applies the address rule). */
interface UsageSubject {
  brandId: string;
  keyId: string;
  keyHash: string;
  addressBrandId: string;
}

/** Where a count was dropped: too many distinct buckets, too many log entries. */
export type UsageDrop = 'counts' | 'log';

/**
 * Why: `buckets_full` (no room for a new counter); for the log, `unattributable` (an entry the
 * gateway can place under no brand, refused or evicted while the log was full; for counts, past
 * their quarter), `brand_share` (the brand's share of the window was used up), `log_full` (no
 * room left for anyone). A `brand_share` or `log_full` entry still adds to its brand's "lost"
 * marker (see UsageBuffer) until the markers' own room is used up; it is counted as dropped
 * all the same, since it is not in the log one by one.
 */
export type UsageDropReason = 'buckets_full' | 'unattributable' | 'brand_share' | 'log_full';

/** What was dropped, told to `onDrop` (the brand is '' when the gateway knows none). */
export interface UsageDropDetail {
  reason: UsageDropReason;
  brandId: string;
}

export interface UsageBufferLimits {
  /** Distinct (subject, minute, surface, outcome) buckets held between flushes. */
  maxBuckets: number;
  /** Request-log entries held between flushes, all kinds together (the memory bound). */
  maxLogEntries: number;
  /** Overrides of the shares derived from maxLogEntries (logShares); tests set them. */
  shares?: Partial<LogShares>;
}

/**
 * How the log's room is shared within one flush window (maxLogEntries in all):
 * - `markers`: entries kept aside for one "N lost" marker per brand;
 * - `perBrand`: entries (single and summaries) one brand may hold of the rest;
 * - `perSource`: requests of one source (an admitted key, or a client address) kept one by one;
 *   the source's next ones are folded into one summary entry that counts them.
 */
export interface LogShares {
  markers: number;
  perBrand: number;
  perSource: number;
}

/** The shares for a log of `maxLogEntries`: 1,000 gives 100 markers, 90 a brand, 20 a source. */
export function logShares(maxLogEntries: number): LogShares {
  const markers = Math.floor(maxLogEntries / 10);
  const perBrand = Math.max(1, Math.ceil((maxLogEntries - markers) / 10));
  return { markers, perBrand, perSource: Math.max(1, Math.min(20, perBrand - 1)) };
}

/**
 * One entry of the log: a request, or the first of several it stands for (`folded` > 1): a
 * source's summary, or a brand's "lost" marker.
 */
interface Slot {
  entry: RefusedRequest;
  source: string;
  /** The brand the gateway files it under ('' for none: unattributable). */
  owner: string;
  folded: number;
  lastAt: number;
}

/** What one source holds in the window: its single entries, and its summary once it has one. */
interface SourceState {
  kept: number;
  summary: Slot | undefined;
}

/** One subject's counts: minute*4+surface → outcome → count (numbers and interned strings only). */
interface SubjectCounts {
  subject: UsageSubject;
  cells: Map<number, Map<string, number>>;
}

/**
 * What a gateway counted since its last flush, bounded: at most `maxBuckets` distinct buckets
 * and `maxLogEntries` request-log entries; what does not fit is dropped and reported to
 * `onDrop` (the usage_dropped_total metric). Adding to an existing bucket allocates nothing:
 * subjects are keyed by a string the request already has (the key id, or the key hash),
 * buckets by a number, outcomes by interned strings. Merging is addition, so drain() hands
 * over sums.
 *
 * The log is shared so that no source can crowd out the others within a window (a review:
 * random keys from one address, answered 401 then an uncharged 429, filled it and
 * every brand's refusals on that gateway were dropped):
 * - a source (an admitted key by its id; anything else by its client address, /64 for IPv6,
 *   as the anonymous budget counts it: a refused key's hash is the sender's free choice) keeps
 *   `perSource` requests one by one, then one summary entry counting the rest;
 * - a brand (the admitted key's, or the one the address was admitted for) holds at most
 *   `perBrand` entries, so a brand with many keys cannot take the log either;
 * - an entry the gateway can place under no brand (an unknown key from an address no brand
 *   uses: records would discard it unless the hash is a known key's) takes free room only and
 *   is the first to go when a placeable entry needs room;
 * - what is still left over adds to one "N lost" marker entry per brand, kept in room of its
 *   own (`markers`), so the brand's log says that entries are missing and how many;
 * - only past all that is an entry dropped without a trace in the log (onDrop, and takeDrops
 *   for the flusher's log line, name the reason and the brand).
 * The counts are shared the same way in one respect: subjects no brand is known for (each
 * random key is one) hold at most a quarter of `maxBuckets`.
 */
export class UsageBuffer {
  private subjects = new Map<string, SubjectCounts>();
  private buckets = 0;
  /** Buckets of subjects no brand is known for (refused unknown keys from unused addresses). */
  private unplacedBuckets = 0;
  private slots: Slot[] = [];
  /** Indexes of unattributable slots, newest last: the first evicted when room is needed. */
  private spare: number[] = [];
  private sources = new Map<string, SourceState>();
  private owners = new Map<string, number>();
  private markers = new Map<string, Slot>();
  private drops = new Map<string, number>();
  private dropBrands = new Set<string>();
  private readonly shares: LogShares;
  private readonly room: number;

  constructor(
    private readonly limits: UsageBufferLimits,
    private readonly onDrop: (kind: UsageDrop, n: number, detail: UsageDropDetail) => void = () =>
      undefined,
  ) {
    this.shares = { ...logShares(limits.maxLogEntries), ...limits.shares };
    this.room = Math.max(0, limits.maxLogEntries - this.shares.markers);
  }

  /**
   * Adds `n` requests. `subjectKey` identifies the subject (its key id, key hash, or an
   * address brand's key); the subject's fields are copied into a new object only when the
   * subject is new, so counting for a known key allocates nothing.
   */
  count(
    subjectKey: string,
    brandId: string,
    keyId: string,
    keyHash: string,
    addressBrandId: string,
    minute: number,
    surface: UsageSurface,
    outcome: string,
    n: number,
  ): void {
    let s = this.subjects.get(subjectKey);
    if (s === undefined) {
      if (this.noRoom(n, brandId || addressBrandId)) return;
      s = { subject: { brandId, keyId, keyHash, addressBrandId }, cells: new Map() };
      this.subjects.set(subjectKey, s);
    }
    const cell = minute * 4 + surface;
    let outcomes = s.cells.get(cell);
    if (outcomes === undefined) {
      if (this.noRoom(n, s.subject.brandId || s.subject.addressBrandId)) return;
      outcomes = new Map();
      s.cells.set(cell, outcomes);
    }
    const before = outcomes.get(outcome);
    if (before === undefined) {
      const brand = s.subject.brandId || s.subject.addressBrandId;
      if (this.noRoom(n, brand)) return;
      this.buckets += 1;
      if (brand === '') this.unplacedBuckets += 1;
      outcomes.set(outcome, n);
    } else outcomes.set(outcome, before + n);
  }

  /**
   * Keeps one refused or failed request for the log: one by one within its source's share,
   * else counted in its source's summary, else in its brand's "lost" marker, else dropped
   * (onDrop). Never more than maxLogEntries entries in all.
   */
  logRequest(entry: RefusedRequest): void {
    const owner = entry.brand_id || entry.address_brand_id;
    const source =
      entry.key_id !== ''
        ? `key:${entry.key_id}`
        : `address:${clientAddressKey(entry.client_address)}`;
    const state = this.sources.get(source);
    if (state?.summary !== undefined) {
      fold(state.summary, entry.at);
      return;
    }
    const held = this.owners.get(owner) ?? 0;
    if (owner !== '' && held >= this.shares.perBrand) return this.lose(entry, owner, 'brand_share');
    const index = this.freeSlot(owner !== '');
    if (index === undefined)
      return this.lose(entry, owner, owner === '' ? 'unattributable' : 'log_full');
    const slot: Slot = { entry, source, owner, folded: 1, lastAt: entry.at };
    this.slots[index] = slot;
    if (owner === '') this.spare.push(index);
    this.owners.set(owner, held + 1);
    const s = state ?? { kept: 0, summary: undefined };
    if (s.kept < this.shares.perSource) s.kept += 1;
    else s.summary = slot;
    this.sources.set(source, s);
  }

  /** Distinct buckets and log entries held. */
  size(): { buckets: number; logEntries: number } {
    return { buckets: this.buckets, logEntries: this.slots.length + this.markers.size };
  }

  /**
   * What was dropped since the last call, per reason ("counts:buckets_full", "log:log_full",
   * ...), and up to 20 of the brands it was attributed to; then starts over.
   */
  takeDrops(): { dropped: Record<string, number>; brands: string[] } | undefined {
    if (this.drops.size === 0) return undefined;
    const out = { dropped: Object.fromEntries(this.drops), brands: [...this.dropBrands] };
    this.drops = new Map();
    this.dropBrands = new Set();
    return out;
  }

  /** Everything held, as RecordUsage's lists; the buffer starts empty again. */
  drain(): { counts: UsageCount[]; requests: RefusedRequest[] } {
    const counts: UsageCount[] = [];
    for (const { subject, cells } of this.subjects.values()) {
      for (const [cell, outcomes] of cells) {
        const surface = cell % 4;
        const minute = (cell - surface) / 4;
        for (const [outcome, count] of outcomes) {
          counts.push({
            brand_id: subject.brandId,
            key_id: subject.keyId,
            key_hash: subject.keyHash,
            address_brand_id: subject.addressBrandId,
            minute: minute * 60,
            surface,
            outcome,
            count,
          });
        }
      }
    }
    const requests: RefusedRequest[] = [];
    for (const slot of this.slots) requests.push(summaryOf(slot, false));
    for (const slot of this.markers.values()) requests.push(summaryOf(slot, true));
    // in the order they happened (slots are reused when an unattributable entry is evicted)
    requests.sort((a, b) => a.at - b.at);
    this.subjects = new Map();
    this.buckets = 0;
    this.unplacedBuckets = 0;
    this.slots = [];
    this.spare = [];
    this.sources = new Map();
    this.owners = new Map();
    this.markers = new Map();
    return { counts, requests };
  }

  /**
   * True, and the drop told, when no new bucket may be made for a subject of `brand` ('' for
   * none known): the bound is reached, or subjects of no brand hold their quarter of it already
   * (random keys would otherwise take every bucket, each key a subject of its own).
   */
  private noRoom(n: number, brand: string): boolean {
    if (this.buckets >= this.limits.maxBuckets) {
      this.dropped('counts', n, 'buckets_full', brand);
      return true;
    }
    if (
      brand === '' &&
      this.unplacedBuckets >= Math.max(1, Math.floor(this.limits.maxBuckets / 4))
    ) {
      this.dropped('counts', n, 'unattributable', '');
      return true;
    }
    return false;
  }

  /**
   * A slot for a new entry: free room, else (for an entry a brand is known for) the newest
   * unattributable entry's, which is folded into its source's summary or dropped.
   */
  private freeSlot(attributable: boolean): number | undefined {
    if (this.slots.length < this.room) return this.slots.length;
    if (!attributable) return undefined;
    const index = this.spare.pop();
    if (index === undefined) return undefined;
    const evicted = this.slots[index]!;
    const state = this.sources.get(evicted.source)!;
    if (state.summary === evicted) {
      state.summary = undefined;
      this.dropped('log', evicted.folded, 'unattributable', '');
    } else {
      state.kept -= 1;
      if (state.summary !== undefined) fold(state.summary, evicted.entry.at);
      else this.dropped('log', 1, 'unattributable', '');
    }
    if (state.kept === 0 && state.summary === undefined) this.sources.delete(evicted.source);
    this.owners.set('', (this.owners.get('') ?? 1) - 1);
    return index;
  }

  /**
   * An entry with no room of its own: counted in its brand's marker (the first one becomes the
   * marker, as it was), or dropped when the gateway knows no brand or the markers are used up.
   */
  private lose(entry: RefusedRequest, owner: string, reason: UsageDropReason): void {
    if (owner === '') return this.dropped('log', 1, reason, '');
    const marker = this.markers.get(owner);
    if (marker !== undefined) {
      fold(marker, entry.at);
      return this.dropped('log', 1, reason, owner);
    }
    if (this.markers.size >= this.shares.markers) return this.dropped('log', 1, reason, owner);
    this.markers.set(owner, { entry, source: '', owner, folded: 1, lastAt: entry.at });
  }

  private dropped(kind: UsageDrop, n: number, reason: UsageDropReason, brandId: string): void {
    const key = `${kind}:${reason}`;
    this.drops.set(key, (this.drops.get(key) ?? 0) + n);
    if (brandId !== '' && this.dropBrands.size < 20) this.dropBrands.add(brandId);
    this.onDrop(kind, n, { reason, brandId });
  }
}

function fold(slot: Slot, at: number): void {
  slot.folded += 1;
  if (at > slot.lastAt) slot.lastAt = at;
}

/**
 * A summary or marker records files under `owner` only: a refused key's hash is left out, since
 * records would also file it under the brand owning that hash, whom the count is not about
 * (gateway_reason "malformed" gives its 401 the reason "unknown key").
 */
function onlyFor(entry: RefusedRequest, owner: string): RefusedRequest {
  if (entry.key_id !== '' || entry.key_hash === '') return entry;
  return { ...entry, key_hash: '', address_brand_id: owner, gateway_reason: 'malformed' };
}

const PATH_MAX = 256;

/**
 * A slot as RecordUsage takes it: the request itself, or, standing for more, the first one
 * with the count and the span in its path (records keeps paths of up to 256 characters).
 */
function summaryOf(slot: Slot, lost: boolean): RefusedRequest {
  if (slot.folded === 1) return slot.entry;
  const entry = slot.owner === '' ? slot.entry : onlyFor(slot.entry, slot.owner);
  const until = new Date(slot.lastAt).toISOString();
  const more = slot.folded - 1;
  const tail = lost
    ? ` (and ${more} more refused or failed requests of this brand up to ${until}, lost: this gateway's request log had no more room for this brand)`
    : ` (and ${more} more refused or failed requests with the same ${
        entry.key_id !== '' ? 'key' : 'client address'
      } up to ${until}, not logged one by one)`;
  return { ...entry, path: entry.path.slice(0, Math.max(0, PATH_MAX - tail.length)) + tail };
}
