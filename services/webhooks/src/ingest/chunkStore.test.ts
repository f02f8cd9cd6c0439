import { trace } from '@opentelemetry/api';
import { createLogger } from '@brand/shared/logger';
import {
  refusalBudget,
  storeSkippingRefused,
  type DecodedChunk,
  type StoredChunk,
} from './chunkStore';
import type { SkipReason } from './consumerMetrics';
import type { EventInput } from './eventRepo';

// The backstop behind toEventInput's checks: a value PostgreSQL refuses (class 22) is skipped
// alone; the rest of its chunk is stored, and the partition moves on.
const log = createLogger({ service: 'test', level: 'silent' });
const span = trace.getTracer('test').startSpan('x');
const event = (id: string): { event: EventInput; span: typeof span } => ({
  event: {
    id,
    brandId: 'br_1',
    type: 'payout.paid',
    createdAt: '2026-11-22T10:00:00.000000Z',
    objectJson: '{}',
    test: false,
    producer: 'records',
  },
  span,
});
const chunk = (ids: string[]): DecodedChunk => ({
  source: { topic: 't', partition: 3, groupId: 'g' },
  nextOffset: '10',
  events: ids.map(event),
  skipped: ['unknown_type'],
});
const refused = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
  code: '22021',
});

/** A store that refuses any chunk holding `poison`, and records what it stored. */
function storeRefusing(poison: string, failure: Error = refused) {
  const stored: string[][] = [];
  const store = (c: DecodedChunk): Promise<StoredChunk> => {
    const ids = c.events.map((e) => e.event.id);
    if (ids.includes(poison)) return Promise.reject(failure);
    stored.push(ids);
    return Promise.resolve({
      deliveries: ids.map((eventId) => ({
        id: `dl_${eventId}`,
        eventId,
        eventAt: '2026-11-22T10:00:00.000000Z',
        eventType: 'payout.paid',
        receiverId: 'wh_1',
        brandId: 'br_1',
      })),
      feedVersions: [],
    });
  };
  return { store, stored };
}

it('stores the others of a chunk alone and skips, counted, the one the database refuses', async () => {
  const { store, stored } = storeRefusing('evt_b');
  const counted: SkipReason[][] = [];
  const observer = { chunkStored: (o: { skipped: SkipReason[] }) => counted.push(o.skipped) };
  const result = await storeSkippingRefused(
    store,
    chunk(['evt_a', 'evt_b', 'evt_c']),
    log,
    refusalBudget(),
    observer,
  );
  expect(stored).toEqual([['evt_a'], ['evt_c']]);
  expect(result.deliveries.map((d) => d.eventId)).toEqual(['evt_a', 'evt_c']);
  // the chunk's own skip (an unknown type, decoded before) and the refused event
  expect(counted).toEqual([['unknown_type'], ['refused_by_database']]);
});

// A review (2026-11-29): a fault of ours (a migration, a cast) refuses every event; skipping
// them all would lose them. Past the budget the chunk fails, and its partition waits.
it('skips no more than its budget: past it, the chunk fails and is replayed', async () => {
  const { store } = storeRefusing('evt_b');
  const budget = refusalBudget(2);
  for (let i = 0; i < 2; i++)
    await expect(
      storeSkippingRefused(store, chunk(['evt_a', 'evt_b']), log, budget),
    ).resolves.toBeDefined();
  await expect(storeSkippingRefused(store, chunk(['evt_a', 'evt_b']), log, budget)).rejects.toBe(
    refused,
  );
});

it('skips nothing for any other failure: the chunk is thrown, to be replayed', async () => {
  const down = Object.assign(new Error('Connection terminated'), { code: '57P01' });
  const { store, stored } = storeRefusing('evt_b', down);
  await expect(
    storeSkippingRefused(store, chunk(['evt_a', 'evt_b']), log, refusalBudget()),
  ).rejects.toBe(down);
  expect(stored).toEqual([]);
});
