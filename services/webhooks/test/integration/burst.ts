// The "nothing lost" tests' burst: 1,000 events published in slices while something is
// broken mid-way, and the check that every event reached every receiver.
import type { BusinessEvent } from '@brand/proto/events/v1';
import { makeBusinessEvent } from '@brand/testkit';
import type { Harness, RegisteredReceiver } from './harness';

export const BURST = 1_000;

/** Publishes `events` 50 at a time, with a short pause, so a fault lands mid-burst. */
export async function publishInSlices(
  h: Harness,
  events: BusinessEvent[],
  pauseMs = 20,
  progress: { published: number } = { published: 0 },
): Promise<void> {
  for (let i = 0; i < events.length; i += 50) {
    await h.producer.publish(events.slice(i, i + 50));
    progress.published = Math.min(events.length, i + 50);
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}

export function burstEvents(brandId: string): BusinessEvent[] {
  return Array.from({ length: BURST }, (_, i) =>
    makeBusinessEvent({
      brandId,
      type: 'submission.approved',
      object: { resource: 'submissions', id: `sub_burst${i}`, status: 'approved' },
    }),
  );
}

/**
 * Every event reached the receiver, verified; anything beyond one delivery per event is a
 * duplicate of an event id it already had (the receiver answered it as a duplicate).
 */
export function expectEveryEventOnce(r: RegisteredReceiver, events: BusinessEvent[]): void {
  const ids = new Set(events.map((e) => e.id));
  const verified = r.server.received.filter((d) => d.verdict.ok);
  const processed = verified.filter((d) => d.outcome === 'processed').map((d) => d.event!.id);
  expect(processed.length).toBe(ids.size);
  expect(new Set(processed)).toEqual(ids);
  for (const d of verified) expect(ids.has(d.event!.id)).toBe(true);
  expect(r.server.received.every((d) => d.verdict.ok)).toBe(true);
}

export const processedCount = (r: RegisteredReceiver): number =>
  r.server.received.filter((d) => d.outcome === 'processed').length;
