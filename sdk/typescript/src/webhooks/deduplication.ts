/**
 * Where a receiver remembers the events it processed (docs/contract.md#receiver-verification
 * rule 6), for `verifyWebhook`'s `deduplicate` option and the ready-made handlers. In
 * production back it with your database: `claim` an insert into a table with a unique key
 * (`insert ... on conflict do nothing`, true when a row was inserted), ideally in the same
 * transaction as the event's effects; then duplicates are caught across restarts and across
 * several instances of the receiver.
 */
export interface WebhookDeduplication {
  /** Records `key` atomically: true the first time, false when it was there (a duplicate). */
  claim(key: string): boolean | Promise<boolean>;
  /** Forgets `key`: processing the event failed, so the service's retry must run it again. */
  release(key: string): unknown;
}

/**
 * The key an event is deduplicated on: its event id and its record's id, never
 * X-Service-Attempt (every retry of one event carries a new attempt number and signature).
 */
export function webhookDeduplicationKey(event: {
  id: string;
  data: { object: { id: string } };
}): string {
  return `${event.id}:${event.data.object.id}`;
}

/**
 * A deduplication store in this process's memory, for one receiver process, samples and
 * tests: it forgets the oldest keys beyond `maxEntries` (10,000 by default) and everything on
 * a restart. The service retries one event for about three days, so a store shared by your
 * receiver's instances and kept that long is what production needs.
 */
export function memoryDeduplication(maxEntries = 10_000): WebhookDeduplication {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError('memoryDeduplication: maxEntries must be a positive integer.');
  }
  const keys = new Set<string>();
  return {
    claim: (key) => {
      if (keys.has(key)) return false;
      keys.add(key);
      // a Set iterates in insertion order: the first key is the oldest
      if (keys.size > maxEntries) keys.delete(keys.values().next().value as string);
      return true;
    },
    release: (key) => keys.delete(key),
  };
}
