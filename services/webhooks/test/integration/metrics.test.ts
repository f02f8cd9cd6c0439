// The webhooks service's metrics: /metrics on the operations listener exposes deliveries by
// outcome, attempt duration, event-to-2xx latency, pending deliveries by state, events ingested and
// skipped, and consumer lag per partition; their values move with traffic.
import { makeBusinessEvent, scrapeMetric, waitFor } from '@brand/testkit';
import { newBrandId, startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  // real retry delays, so a refused delivery stays waiting for its retry while we look
  h = await startHarness({ label: 'metrics', env: { RETRY_TIME_SCALE: '1' } });
});
afterAll(() => h?.close());

const metric = (pattern: RegExp) => scrapeMetric(h.webhooks.opsUrl, pattern);
const attempts = (outcome: string) =>
  metric(new RegExp(`^webhook_delivery_attempts_total\\{outcome="${outcome}"\\} `));

/** Waits until `read` gives at least `target`; returns the value seen. */
const reaches = (read: () => Promise<number>, target: number, what: string) =>
  waitFor(async () => ((await read()) >= target ? read() : undefined), {
    timeoutMs: 30_000,
    what,
  });

it('counts attempts by outcome with their duration, event-to-2xx latency and pending retries', async () => {
  const [ok, busy, gone] = [newBrandId(), newBrandId(), newBrandId()];
  await h.addReceiver({ brandId: ok, events: ['payout.paid'] });
  await h.addReceiver({ brandId: busy, events: ['payout.paid'], respondWith: () => 503 });
  await h.addReceiver({ brandId: gone, events: ['payout.paid'], respondWith: () => 410 });
  const before = {
    delivered: await attempts('delivered'),
    retry: await attempts('retry_scheduled'),
    gone: await attempts('gone'),
    durations: await metric(
      /^webhook_delivery_attempt_duration_seconds_count\{outcome="delivered"\} /,
    ),
    latency: await metric(/^webhook_event_delivery_latency_seconds_count /),
    ingested: await metric(/^webhook_events_ingested_total /),
  };

  await h.producer.publish(
    [ok, busy, gone].map((brandId) => makeBusinessEvent({ brandId, type: 'payout.paid' })),
  );

  await reaches(() => attempts('delivered'), before.delivered + 1, 'a delivered attempt');
  await reaches(() => attempts('retry_scheduled'), before.retry + 1, 'a retry scheduled (503)');
  await reaches(() => attempts('gone'), before.gone + 1, 'a 410 counted as gone');
  expect(
    await metric(/^webhook_delivery_attempt_duration_seconds_count\{outcome="delivered"\} /),
  ).toBe(before.durations + 1);
  expect(await metric(/^webhook_event_delivery_latency_seconds_count /)).toBe(before.latency + 1);
  // the delivered event took more than nothing and less than the test's lifetime
  expect(await metric(/^webhook_event_delivery_latency_seconds_sum /)).toBeGreaterThan(0);
  expect(await metric(/^webhook_events_ingested_total /)).toBe(before.ingested + 3);
  // the 503'd delivery waits at least 60 s for its retry (an overloaded receiver)
  expect(await metric(/^webhook_deliveries_pending\{state="retry_scheduled"\} /)).toBe(1);
  expect(await metric(/^webhook_deliveries_pending\{state="in_flight"\} /)).toBe(0);
  expect(await metric(/^webhook_deliveries_pending\{state="due"\} /)).toBe(0);
});

it('counts duplicate and unreadable messages as skipped, by reason', async () => {
  const skipped = (reason: string) =>
    metric(new RegExp(`^webhook_events_skipped_total\\{reason="${reason}"\\} `));
  const before = {
    duplicate: await skipped('duplicate'),
    undecodable: await skipped('undecodable'),
  };
  const event = makeBusinessEvent({ brandId: newBrandId() });
  await h.producer.publish([event, event]);
  await h.producer.publishRaw('br_x', [Buffer.from([0x0a, 0xff, 0xff])]);
  await reaches(() => skipped('duplicate'), before.duplicate + 1, 'a duplicate counted');
  await reaches(() => skipped('undecodable'), before.undecodable + 1, 'an undecodable counted');
});

it('shows consumer lag per partition, growing while the consumer cannot store events', async () => {
  const lag = () => metric(/^webhook_consumer_lag_messages\{partition="\d+"\} /);
  const text = await (await fetch(`${h.webhooks.opsUrl}/metrics`)).text();
  for (const partition of [0, 1, 2])
    expect(text).toMatch(
      new RegExp(`^webhook_consumer_lag_messages\\{partition="${partition}"\\} 0$`, 'm'),
    );

  // hold inserts into events: the consumer's transaction waits, its offsets stay put
  const blocker = await h.db.pool.connect();
  try {
    await blocker.query('begin');
    await blocker.query('lock table webhooks.events in share mode');
    const brandId = newBrandId();
    await h.producer.publish(
      Array.from({ length: 5 }, () => makeBusinessEvent({ brandId, type: 'payout.paid' })),
    );
    await reaches(lag, 5, 'lag of the 5 events held back');
    // still behind a while later: the consumer fetched them but cannot commit past them
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await lag()).toBe(5);
  } finally {
    await blocker.query('rollback');
    blocker.release();
  }
  await waitFor(async () => ((await lag()) === 0 ? true : undefined), {
    timeoutMs: 30_000,
    what: 'the lag back to 0 once the consumer caught up',
  });
});
