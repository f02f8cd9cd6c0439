import type { LRUCache } from 'lru-cache';
import { growingLru } from './growingLru';
import { LEASE_SPAN_MS } from './admissionLeases';

/** A value read along (a change version) and when the call that read it was sent. */
interface Peeked {
  value: string | null;
  sentAt: number;
}

/** Keys read along for one budget at most, per call (a brand's six lists and its events). */
const MAX_KEYS_PER_BUDGET = 8;

/**
 * The values the rate-limit calls read along (issue 18: a list's change version, read in the
 * same round trip), kept for the requests a lease admits without a call (admissionLeases.ts).
 * A value may label a page while it is younger than a lease's span: it was read before the
 * page, as the script's read is, so a page is never labelled with a version newer than it
 * holds; a conditional request never uses a kept one (its 304 is decided on the version as it
 * is now), and a key Redis lacked is not kept in use (the page writes it back).
 *
 * A budget's lease call reads every key its requests read lately, so one call a span serves
 * the pages of all of a brand's lists.
 */
export class PeekedValues {
  private readonly values: LRUCache<string, Peeked>;
  /** Keys each budget's requests read along lately, with when. */
  private readonly byBudget: LRUCache<string, Map<string, number>>;

  constructor(opts: { maxKeys: number }) {
    this.values = growingLru(opts.maxKeys);
    this.byBudget = growingLru(opts.maxKeys);
  }

  /** Notes that a request of `budget` reads `key` along. */
  note(budget: string, key: string, now: number): void {
    let keys = this.byBudget.get(budget);
    if (!keys) {
      keys = new Map();
      this.byBudget.set(budget, keys);
    }
    keys.delete(key);
    keys.set(key, now);
    if (keys.size > MAX_KEYS_PER_BUDGET) keys.delete(keys.keys().next().value!);
  }

  /** `key`'s value while a leased unit may use it, else undefined (read it with a call). */
  usable(key: string, now: number): string | undefined {
    const peeked = this.values.get(key);
    if (!peeked || peeked.value === null || now - peeked.sentAt >= LEASE_SPAN_MS) return undefined;
    return peeked.value;
  }

  /** The keys a call for `budget` should read: `key` first, then the budget's recent others. */
  toRead(budget: string, key: string | undefined, now: number, withOthers: boolean): string[] {
    const keys = key === undefined ? [] : [key];
    if (!withOthers) return keys;
    for (const [other, at] of this.byBudget.get(budget) ?? [])
      if (other !== key && now - at < 4 * LEASE_SPAN_MS) keys.push(other);
    return keys;
  }

  /** Keeps what a call sent at `sentAt` read. */
  read(keys: readonly string[], values: ReadonlyArray<string | null>, sentAt: number): void {
    for (const [i, key] of keys.entries())
      this.values.set(key, { value: values[i] ?? null, sentAt });
  }
}
