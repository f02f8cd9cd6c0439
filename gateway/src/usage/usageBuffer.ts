import type { RefusedRequest, UsageCount, UsageSurface } from '@brand/proto/access/v1/usage';

/** Who a count is attributed to (records resolves a key hash and applies the address rule). */
interface UsageSubject {
  brandId: string;
  keyId: string;
  keyHash: string;
  addressBrandId: string;
}

/** Where a count was dropped: too many distinct buckets, too many log entries. */
export type UsageDrop = 'counts' | 'log';

export interface UsageBufferLimits {
  /** Distinct (subject, minute, surface, outcome) buckets held between flushes. */
  maxBuckets: number;
  /** Refused requests held between flushes. */
  maxLogEntries: number;
}

/** One subject's counts: minute*4+surface → outcome → count (numbers and interned strings only). */
interface SubjectCounts {
  subject: UsageSubject;
  cells: Map<number, Map<string, number>>;
}

/**
 * What a gateway counted since its last flush, bounded: at most `maxBuckets` distinct buckets
 * and `maxLogEntries` refused requests; what does not fit is dropped and reported to `onDrop`
 * (the usage_dropped_total metric). Adding to an existing bucket allocates nothing: subjects
 * are keyed by a string the request already has (the key id, or the key hash), buckets by a
 * number, outcomes by interned strings. Merging is addition, so drain() hands over sums.
 */
export class UsageBuffer {
  private subjects = new Map<string, SubjectCounts>();
  private buckets = 0;
  private log: RefusedRequest[] = [];

  constructor(
    private readonly limits: UsageBufferLimits,
    private readonly onDrop: (kind: UsageDrop, n: number) => void = () => undefined,
  ) {}

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
      if (this.buckets >= this.limits.maxBuckets) return this.onDrop('counts', n);
      s = { subject: { brandId, keyId, keyHash, addressBrandId }, cells: new Map() };
      this.subjects.set(subjectKey, s);
    }
    const cell = minute * 4 + surface;
    let outcomes = s.cells.get(cell);
    if (outcomes === undefined) {
      if (this.buckets >= this.limits.maxBuckets) return this.onDrop('counts', n);
      outcomes = new Map();
      s.cells.set(cell, outcomes);
    }
    const before = outcomes.get(outcome);
    if (before === undefined) {
      if (this.buckets >= this.limits.maxBuckets) return this.onDrop('counts', n);
      this.buckets += 1;
      outcomes.set(outcome, n);
    } else outcomes.set(outcome, before + n);
  }

  /** Keeps one refused or failed request for the log, unless the log is full. */
  logRequest(entry: RefusedRequest): void {
    if (this.log.length >= this.limits.maxLogEntries) return this.onDrop('log', 1);
    this.log.push(entry);
  }

  /** Distinct buckets and log entries held. */
  size(): { buckets: number; logEntries: number } {
    return { buckets: this.buckets, logEntries: this.log.length };
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
    const requests = this.log;
    this.subjects = new Map();
    this.buckets = 0;
    this.log = [];
    return { counts, requests };
  }
}
