// Knowing when a receiver is failing: its health (attempts, successes, failures by class, latency)
// over 1 h, 24 h and 7 d matches what the real receiver saw, test deliveries excluded; a failing
// receiver shows since when and its last error; when the service disables it (410, or no 2xx within
// RECEIVER_DISABLE_AFTER_MS, here 1.5 s) one notice is written for the console's mailer (leased,
// handed out again if not acknowledged, never again once acknowledged), and none when a person
// disabled it.
import {
  createWebhooksClient,
  makeBusinessEvent,
  TEST_CONSOLE_TOKEN,
  waitFor,
  type WebhooksClient,
} from '@brand/testkit';
import { deliveriesOf, newBrandId, setEnabled, startHarness, type Harness } from './harness';

let h: Harness;
let mailer: WebhooksClient;

beforeAll(async () => {
  h = await startHarness({ label: 'health', env: { RECEIVER_DISABLE_AFTER_MS: '1500' } });
  mailer = createWebhooksClient(h.webhooks.address, TEST_CONSOLE_TOKEN);
});
afterAll(async () => {
  mailer?.close();
  await h?.close();
});

const SETTLED = 'campaign.settled' as const;

const health = async (receiverId: string) =>
  (await h.client.call('getReceiverHealth', { receiver_id: receiverId })).windows;
const receiver = async (id: string) =>
  (await h.client.call('getReceiver', { receiver_id: id })).receiver!;
const claim = (limit = 0, leaseMs = 0) =>
  mailer.call('claimReceiverNotices', { limit, lease_ms: leaseMs });

describe('receiver health', () => {
  it('counts every attempt the receiver saw, by outcome, in all three windows', async () => {
    const brand = newBrandId();
    // every third request fails (and is retried), the others answer after ~40 ms
    const r = await h.addReceiver({
      brandId: brand,
      events: [SETTLED],
      respondWith: (n) => (n % 3 === 0 ? 500 : { status: 200, delayMs: 40 }),
    });
    await h.producer.publish(
      Array.from({ length: 8 }, () => makeBusinessEvent({ brandId: brand, type: SETTLED })),
    );
    await h.client.call('testReceiver', {
      receiver_id: r.receiver.id,
      event_type: 0,
      with_new_secret: false,
    });
    await waitFor(
      async () => {
        const list = await deliveriesOf(h, r.receiver.id);
        return list.length === 9 && list.every((d) => d.completed_at !== '');
      },
      { timeoutMs: 30_000 },
    );
    const real = r.server.received.filter((d) => d.event?.test !== true);
    const ok = real.filter((d) => d.status === 200).length;
    const failed = real.filter((d) => d.status === 500).length;
    expect(failed).toBeGreaterThan(0);

    const windows = await health(r.receiver.id);
    expect(windows.map((w) => [w.window, w.buckets.length, w.bucket_seconds])).toEqual([
      ['1h', 12, 300],
      ['24h', 24, 3_600],
      ['7d', 28, 21_600],
    ]);
    for (const w of windows) {
      expect(w).toMatchObject({ attempts: ok + failed, succeeded: ok });
      expect(w.failures).toEqual([{ class: 'http_5xx', count: failed }]);
      expect(w.buckets.reduce((n, b) => n + b.succeeded, 0)).toBe(ok);
      expect(w.buckets.reduce((n, b) => n + b.failed, 0)).toBe(failed);
      expect(w.p50_ms).toBeGreaterThan(0);
      expect(w.p95_ms).toBeGreaterThanOrEqual(w.p50_ms);
    }
    expect(windows[0]!.buckets.at(-1)!.succeeded + windows[0]!.buckets.at(-2)!.succeeded).toBe(ok);
  });

  it('is empty for a receiver without attempts, and not_found for an unknown one', async () => {
    const r = await h.addReceiver({ brandId: newBrandId(), events: [SETTLED] });
    const [hour] = await health(r.receiver.id);
    expect(hour).toMatchObject({ attempts: 0, succeeded: 0, failures: [], p50_ms: 0, p95_ms: 0 });
    await expect(health('rcv_doesNotExist0000')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('a failing receiver', () => {
  it('shows since when and its last error, is disabled by the failure window, and its owners get one notice', async () => {
    const brand = newBrandId();
    const r = await h.addReceiver({ brandId: brand, events: [SETTLED], respondWith: () => 503 });
    const started = Date.now();
    await h.producer.publish([makeBusinessEvent({ brandId: brand, type: SETTLED })]);
    const failing = await waitFor(async () => {
      const s = await receiver(r.receiver.id);
      return s.failing_since ? s : undefined;
    });
    expect(failing).toMatchObject({ enabled: true, last_error: '503 from the receiver' });
    expect(Date.parse(failing.failing_since)).toBeGreaterThanOrEqual(started - 1_000);
    const listed = (await h.client.call('listReceivers', { brand_id: brand })).receivers[0]!;
    expect(listed).toMatchObject({
      failing_since: failing.failing_since,
      last_error: '503 from the receiver',
    });

    // 503 waits at least 60 ms between attempts; 1.5 s without a 2xx disables it
    const disabled = await waitFor(
      async () => {
        const s = await receiver(r.receiver.id);
        return s.enabled ? undefined : s;
      },
      { timeoutMs: 30_000 },
    );
    expect(disabled).toMatchObject({ disabled_by_service: true });
    expect(disabled.disabled_reason).toMatch(/^no 2xx since /);
    expect(Date.parse(disabled.disabled_at)).toBeGreaterThan(Date.parse(failing.failing_since));

    const notice = await waitFor(async () =>
      (await claim()).notices.find((n) => n.receiver_id === r.receiver.id),
    );
    expect(notice).toMatchObject({
      brand_id: brand,
      receiver_label: r.receiver.label,
      receiver_url: r.receiver.url,
      failing_since: failing.failing_since,
      disabled_at: disabled.disabled_at,
      reason: disabled.disabled_reason,
      last_error: '503 from the receiver',
    });
    expect(notice.id).toMatch(/^rcn_/);
    // leased: not handed out again while the mailer works on it; acknowledged: never again
    expect((await claim()).notices.map((n) => n.id)).not.toContain(notice.id);
    await mailer.call('ackReceiverNotice', { id: notice.id });
    await mailer.call('ackReceiverNotice', { id: notice.id });
    const { entries } = await h.client.call('listActivity', {
      brand_id: brand,
      page_size: 0,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    });
    expect(entries[0]).toMatchObject({
      action: 'receiver.disabled',
      actor_email: 'webhooks service',
    });
  });
});

describe('disable notices', () => {
  it('are written once for a 410, handed out again after the lease, and never for an owner’s disable', async () => {
    const brand = newBrandId();
    const gone = await h.addReceiver({ brandId: brand, events: [SETTLED], respondWith: () => 410 });
    const owners = await h.addReceiver({ brandId: brand, events: [SETTLED] });
    await setEnabled(h, owners.receiver.id, false);
    expect(await receiver(owners.receiver.id)).toMatchObject({
      enabled: false,
      disabled_by_service: false,
    });
    await h.producer.publish([makeBusinessEvent({ brandId: brand, type: SETTLED })]);

    const first = await waitFor(async () =>
      (await claim(100, 1_000)).notices.find((n) => n.brand_id === brand),
    );
    expect(first).toMatchObject({
      receiver_id: gone.receiver.id,
      last_error: '410 from the receiver',
    });
    expect(first.reason).toMatch(/^gone: the receiver answered 410/);
    // the mailer died without acknowledging: after the lease it is handed out again
    await new Promise((done) => setTimeout(done, 1_100));
    const again = (await claim(100)).notices.filter((n) => n.brand_id === brand);
    expect(again.map((n) => n.id)).toEqual([first.id]);
    await mailer.call('ackReceiverNotice', { id: first.id });
    const { rows } = await h.db.pool.query<{ n: number }>(
      `select count(*)::int as n from webhooks.receiver_notices where brand_id = $1`,
      [brand],
    );
    expect(rows[0]!.n).toBe(1);
    await expect(
      mailer.call('ackReceiverNotice', { id: 'rcn_doesNotExist0000' }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(claim(101)).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(claim(1, 10)).rejects.toMatchObject({ code: 'validation_failed' });
    // a person enabling it again clears the service's disable
    await setEnabled(h, gone.receiver.id, true);
    expect(await receiver(gone.receiver.id)).toMatchObject({
      enabled: true,
      disabled_by_service: false,
      disabled_at: '',
    });
  });
});
