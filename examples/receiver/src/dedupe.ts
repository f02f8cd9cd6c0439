import { type DeliveryEvent } from './event';

/**
 * Remembers which events were processed. A real receiver backs this with its database (a
 * table with a unique key, claimed with `insert ... on conflict do nothing`), so duplicates
 * are caught across restarts and across several receiver instances.
 */
export interface DedupeStore {
  /** Atomically records `key`; resolves true the first time, false if it was already there. */
  claim(key: string): Promise<boolean>;
  /** Forgets `key`, so a retry of a delivery whose processing failed is processed again. */
  release(key: string): Promise<void>;
}

/**
 * The deduplication key: the event id and the record id (docs/contract.md#receiver-verification). Never the attempt
 * number: every retry of one event carries a new X-Service-Attempt and a new signature.
 */
export function dedupeKey(event: DeliveryEvent): string {
  return `${event.id}:${event.data.object.id}`;
}

/**
 * A bounded in-memory store for samples and tests: it forgets the oldest keys beyond
 * `maxEntries`, and everything on restart. Retries of one event span about three days,
 * so a production store should keep keys at least that long.
 */
export class MemoryDedupeStore implements DedupeStore {
  private readonly keys = new Set<string>();

  constructor(private readonly maxEntries = 10_000) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError('maxEntries must be a positive integer');
    }
  }

  claim(key: string): Promise<boolean> {
    if (this.keys.has(key)) return Promise.resolve(false);
    this.keys.add(key);
    // A Set iterates in insertion order, so the first key is the oldest.
    if (this.keys.size > this.maxEntries) {
      const oldest = this.keys.values().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
    return Promise.resolve(true);
  }

  release(key: string): Promise<void> {
    this.keys.delete(key);
    return Promise.resolve();
  }

  get size(): number {
    return this.keys.size;
  }
}

/** The keys this process is running a handler for, per store. */
const running = new WeakMap<DedupeStore, Set<string>>();

/**
 * Runs `handler` once per dedupe key. A duplicate resolves 'duplicate' without running it, and
 * a repeat while this process still runs it 'in_progress' (answer non-2xx: the first may still
 * fail, and a 2xx would stop the sender's retries); if the handler throws, the key is released
 * and the error rethrown, so the sender's retry (after our non-2xx answer) processes it again.
 */
export async function processOnce(
  store: DedupeStore,
  event: DeliveryEvent,
  handler: (event: DeliveryEvent) => void | Promise<void>,
): Promise<'processed' | 'duplicate' | 'in_progress'> {
  const key = dedupeKey(event);
  const keys = running.get(store) ?? new Set<string>();
  running.set(store, keys);
  if (keys.has(key)) return 'in_progress';
  // marked before the claim is awaited, so a repeat meanwhile sees it
  keys.add(key);
  let claimed: boolean;
  try {
    claimed = await store.claim(key);
  } catch (error) {
    keys.delete(key);
    throw error;
  }
  if (!claimed) {
    keys.delete(key);
    return 'duplicate';
  }
  try {
    await handler(event);
  } catch (error) {
    await store.release(key);
    throw error;
  } finally {
    keys.delete(key);
  }
  return 'processed';
}
