// The outbox relay publishes every business event to Kafka exactly as
// proto/brand/events/v1/events.proto says (key = brand id, protobuf value, content-type header,
// object_json), marks the rows published, keeps each brand's order, and keeps up with a burst. The
// poll interval is set to a minute, so every prompt delivery here proves the LISTEN/NOTIFY wake-up.
// Real records process, PostgreSQL and Kafka.
import { EventType } from '@brand/proto/events/v1';
import { BUSINESS_EVENT_CONTENT_TYPE } from '@brand/shared/kafka';
import {
  makeRecords,
  startStack,
  waitFor,
  type Stack,
  makePendingSubmissions,
} from '@brand/testkit';
import { asEventObject, createEventTopic, TEST_KAFKA_BROKERS, type EventTopic } from './eventTopic';

let stack: Stack;
let topic: EventTopic;

beforeAll(async () => {
  topic = await createEventTopic(3);
  stack = await startStack({
    gateways: 0,
    recordsEnv: {
      KAFKA_BROKERS: TEST_KAFKA_BROKERS,
      BUSINESS_EVENTS_TOPIC: topic.topic,
      OUTBOX_POLL_MS: '60000',
    },
  });
});
afterAll(async () => {
  await stack?.close();
  await topic?.close();
});

const unpublished = async (): Promise<number> => {
  const { rows } = await stack.db.pool.query<{ n: number }>(
    'select count(*)::int as n from records.outbox where published_at is null',
  );
  return rows[0]!.n;
};

/** Runs `tasks` with at most `limit` in flight; resolves with every result in order. */
async function inParallel<T>(limit: number, tasks: Array<() => Promise<T>>): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

describe('relay', () => {
  it('publishes each of the four events with the envelope of events.proto', async () => {
    const brandId = (await stack.admin.createBrand()).brand.id;
    const pool = stack.db.pool;
    const subs = await makeRecords(pool, brandId, 'submissions', 2, () => ({ status: 'pending' }));
    const [po] = await makeRecords(pool, brandId, 'payouts', 1, () => ({ status: 'processing' }));
    const [cmp] = await makeRecords(pool, brandId, 'campaigns', 1, () => ({
      status: 'completed',
    }));
    const started = Date.now();
    const approved = await stack.admin.records('approveSubmission', {
      submission_id: subs[0]!.id,
    });
    const rejected = await stack.admin.records('rejectSubmission', {
      submission_id: subs[1]!.id,
      reason: 'Missing disclosure tag',
    });
    const paid = await stack.admin.records('payPayout', { payout_id: po!.id });
    const settled = await stack.admin.records('settleCampaign', { campaign_id: cmp!.id });
    const results = [approved, rejected, paid, settled];
    const ids = results.map((r) => r.event_id);
    const mine = await waitFor(
      () => {
        const found = topic.messages.filter((m) => ids.includes(m.event?.id ?? ''));
        return found.length === 4 ? found : undefined;
      },
      { timeoutMs: 10_000, what: 'the four events on Kafka' },
    );
    // woken by NOTIFY, not by the one-minute poll
    expect(Date.now() - started).toBeLessThan(8_000);

    const byId = new Map(mine.map((m) => [m.event!.id, m]));
    const expected: Array<[EventType, Record<string, unknown>]> = [
      [
        EventType.EVENT_TYPE_SUBMISSION_APPROVED,
        asEventObject('submissions', approved.submission!),
      ],
      [
        EventType.EVENT_TYPE_SUBMISSION_REJECTED,
        asEventObject('submissions', rejected.submission!),
      ],
      [EventType.EVENT_TYPE_PAYOUT_PAID, asEventObject('payouts', paid.payout!)],
      [EventType.EVENT_TYPE_CAMPAIGN_SETTLED, asEventObject('campaigns', settled.campaign!)],
    ];
    expected.forEach(([type, object], i) => {
      const m = byId.get(ids[i]!)!;
      expect(m.key).toBe(brandId);
      expect(m.contentType).toBe(BUSINESS_EVENT_CONTENT_TYPE);
      expect(m.event).toMatchObject({
        id: ids[i],
        type,
        brand_id: brandId,
        producer: 'records',
        created_at: (object as { updated_at: string }).updated_at,
      });
      expect(m.event!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      const parsed = JSON.parse(m.event!.object_json) as Record<string, unknown>;
      expect(parsed).toEqual(object);
      expect(Object.keys(parsed)).toEqual(Object.keys(object));
      expect([typeof parsed.id, typeof parsed.status]).toEqual(['string', 'string']);
      // no private creator details beyond a handle
      for (const field of ['email', 'phone', 'full_name', 'account_number', 'brand_id']) {
        expect(parsed).not.toHaveProperty(field);
      }
    });

    await waitFor(async () => (await unpublished()) === 0, { what: 'rows marked published' });
    const { rows } = await stack.db.pool.query<{ attempts: number; last_error: string | null }>(
      'select attempts, last_error from records.outbox where id = any($1::text[])',
      [ids],
    );
    expect(rows).toEqual(ids.map(() => ({ attempts: 1, last_error: null })));
  });

  it("keeps each brand's events in the order their changes committed", async () => {
    const brands = await Promise.all([0, 1, 2].map(() => stack.admin.createBrand()));
    const perBrand = await Promise.all(
      brands.map(({ brand }) =>
        makeRecords(stack.db.pool, brand.id, 'submissions', 40, () => ({ status: 'pending' })),
      ),
    );
    // the brands' changes interleave; within a brand each waits for the previous one
    const committed = await Promise.all(
      perBrand.map(async (subs) => {
        const ids: string[] = [];
        for (const s of subs) {
          ids.push(
            (await stack.admin.records('approveSubmission', { submission_id: s.id })).event_id,
          );
        }
        return ids;
      }),
    );
    const all = new Set(committed.flat());
    await waitFor(
      () => topic.messages.filter((m) => all.has(m.event?.id ?? '')).length === all.size,
      { timeoutMs: 20_000, what: 'every ordered event on Kafka' },
    );
    brands.forEach(({ brand }, b) => {
      const seen = topic.messages.filter((m) => m.key === brand.id).map((m) => m.event!.id);
      expect(seen).toEqual(committed[b]);
      // one brand, one partition
      const partitions = new Set(
        topic.messages.filter((m) => m.key === brand.id).map((m) => m.partition),
      );
      expect(partitions.size).toBe(1);
    });
  });

  it('publishes a burst of 1,000 changes, each once, with unique ids', async () => {
    const brands = await Promise.all([0, 1, 2, 3].map(() => stack.admin.createBrand()));
    const subs = (
      await Promise.all(
        brands.map(({ brand }) =>
          makeRecords(stack.db.pool, brand.id, 'submissions', 250, () => ({ status: 'pending' })),
        ),
      )
    ).flat();
    const before = topic.messages.length;
    const eventIds = await inParallel(
      16,
      subs.map(
        (s) => async () =>
          (await stack.admin.records('approveSubmission', { submission_id: s.id })).event_id,
      ),
    );
    expect(new Set(eventIds).size).toBe(1_000);
    const burst = new Set(eventIds);
    await waitFor(
      () => topic.messages.filter((m) => burst.has(m.event?.id ?? '')).length >= 1_000,
      { timeoutMs: 60_000, intervalMs: 200, what: '1,000 events on Kafka' },
    );
    const received = topic.messages.slice(before).map((m) => m.event!.id);
    // nothing without a crash is published twice, and nothing else was published
    expect(received).toHaveLength(1_000);
    expect(new Set(received)).toEqual(burst);
    await waitFor(async () => (await unpublished()) === 0, { what: 'rows marked published' });
  });

  it('counts published events and reports the backlog on /metrics', async () => {
    const series = async (name: string): Promise<number> => {
      const text = await (await fetch(`${stack.records.opsUrl}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return line ? Number(line.split(' ').pop()) : Number.NaN;
    };
    const before = await series('outbox_events_published_total');
    const brandId = (await stack.admin.createBrand()).brand.id;
    const subs = await makePendingSubmissions(stack.db.pool, brandId, 3);
    const ids: string[] = [];
    for (const s of subs) {
      ids.push((await stack.admin.records('approveSubmission', { submission_id: s.id })).event_id);
    }
    await waitFor(() => ids.every((id) => topic.messages.some((m) => m.event?.id === id)), {
      what: 'the three events on Kafka',
    });
    await waitFor(async () => (await series('outbox_events_published_total')) === before + 3, {
      what: 'published_total + 3',
    });
    expect(await series('outbox_unpublished_events')).toBe(0);
    expect(await series('outbox_oldest_unpublished_age_seconds')).toBe(0);
    expect(await series('outbox_publish_failures_total')).toBe(0);
  });

  it('stops cleanly on SIGTERM: the relay is a shutdown step and the process exits 0', async () => {
    const brandId = (await stack.admin.createBrand()).brand.id;
    const [sub] = await makePendingSubmissions(stack.db.pool, brandId, 1);
    const { event_id } = await stack.admin.records('approveSubmission', {
      submission_id: sub!.id,
    });
    await waitFor(() => topic.messages.some((m) => m.event?.id === event_id), {
      what: 'the last event on Kafka',
    });
    expect(await stack.records.stop('SIGTERM')).toBe(0);
    const logs = stack.records.logs().join('\n');
    expect(logs).toContain('outbox relay stopped');
    expect(await unpublished()).toBe(0);
  });
});
