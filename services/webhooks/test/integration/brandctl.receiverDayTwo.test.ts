// Issue 24, the day-2 receiver commands of brandctl end to end against the real webhooks
// service and a real verifying HTTPS receiver: rotate-secret prints the new secret once with
// the steps, test --new-secret, switch-secret later or now, cancel-rotation; retry; recover
// with its preview (nothing changes without --yes); health; delivery with what was sent and
// answered. Refusals carry the service's code with exit 1. The real retry schedule
// (RETRY_TIME_SCALE=1) keeps a failed delivery waiting for retry.
import { makeBusinessEvent, waitFor } from '@brand/testkit';
import { brandctl as run, json } from './brandctlRun';
import { deliveriesOf, newBrandId, setEnabled, startHarness, type Harness } from './harness';

let h: Harness;
const brandctl = (...args: string[]) => run(h, ...args);

beforeAll(async () => {
  h = await startHarness({ label: 'brandctl2', env: { RETRY_TIME_SCALE: '1' } });
});
afterAll(() => h?.close());

interface ReceiverOut {
  id: string;
  rotation: { switch_at: string | null; test_status: string | null } | null;
}

describe('brandctl receiver, day 2', () => {
  it('rotates a secret: shown once with the steps, tested, scheduled, switched', async () => {
    const r = await h.addReceiver({ brandId: newBrandId(), events: ['payout.paid'] });
    const id = r.receiver.id;
    const rotated = await brandctl('receiver', 'rotate-secret', id);
    expect(rotated.code).toBe(0);
    const secret = /New signing secret \(shown once\):\n\n {4,}(whsec_[0-9A-Za-z]{32})\n/.exec(
      rotated.stdout,
    )?.[1];
    expect(secret).toBeDefined();
    expect(rotated.stdout).toContain(`brandctl receiver test ${id} --new-secret`);
    const again = await brandctl('receiver', 'rotate-secret', id, '--json');
    expect(again.code).toBe(1);
    expect(json<{ error: { code: string } }>(again).error.code).toBe('rotation_pending');

    r.secrets.push(secret!);
    expect((await brandctl('receiver', 'test', id, '--new-secret')).code).toBe(0);
    await waitFor(
      async () => {
        const { receivers } = json<{ receivers: ReceiverOut[] }>(
          await brandctl('receiver', 'list', '--brand', r.receiver.brand_id, '--json'),
        );
        return receivers[0]?.rotation?.test_status === 'succeeded';
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );

    const later = await brandctl('receiver', 'switch-secret', id, '--in', '1h');
    expect(later.stdout).toMatch(/^Switch scheduled for \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
    expect(later.stdout).toMatch(
      /secret rotation +new secret since .*; switch at .*; test with the new secret succeeded/,
    );
    const now = json<{ switched: boolean; receiver: ReceiverOut }>(
      await brandctl('receiver', 'switch-secret', id, '--json'),
    );
    expect(now).toMatchObject({ switched: true, receiver: { rotation: null } });
    const cancel = await brandctl('receiver', 'cancel-rotation', id);
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toMatch(/no secret rotation pending/);
  });

  it('retries a waiting delivery, shows it in full, recovers failed ones after a preview, and reads health', async () => {
    let down = true;
    const r = await h.addReceiver({
      brandId: newBrandId(),
      events: ['payout.paid'],
      respondWith: () => (down ? { status: 503, body: '<h1>maintenance</h1>' } : undefined),
    });
    const id = r.receiver.id;
    await h.producer.publish([
      makeBusinessEvent({ brandId: r.receiver.brand_id, type: 'payout.paid' }),
      makeBusinessEvent({ brandId: r.receiver.brand_id, type: 'payout.paid' }),
    ]);
    const [waiting, other] = await waitFor(
      async () => {
        const list = await deliveriesOf(h, id);
        return list.length === 2 && list.every((d) => d.attempt_count === 1) ? list : undefined;
      },
      { timeoutMs: 30_000 },
    );

    const shown = await brandctl('receiver', 'delivery', waiting!.id);
    expect(shown.stdout).toMatch(/Attempt 1 {2}\S+ \S+ {2}\d+ ms {2}503 from the receiver/);
    expect(shown.stdout).toContain('<h1>maintenance</h1>');
    expect(shown.stdout).toMatch(/x-service-signature: sha256=[0-9a-f]{8}…/);
    expect(shown.stdout).toContain('Event sent (the same bytes on every attempt):');

    down = false;
    const retried = await brandctl('receiver', 'retry', waiting!.id);
    expect(retried.stdout).toMatch(/^Next attempt due now/);
    await r.server.waitFor((rx) => rx.some((d) => d.outcome === 'processed'), 15_000);

    // the other one fails for good: disabling fails what is pending; then recover it
    await setEnabled(h, id, false);
    await setEnabled(h, id, true);
    const preview = await brandctl('receiver', 'recover', id, '--since', '1h');
    expect(preview.code).toBe(0);
    expect(preview.stdout).toMatch(
      /^1 failed deliveries since .*\.\nNothing changed\. Re-queue them with:\n {2}brandctl receiver recover .* --yes/,
    );
    expect((await deliveriesOf(h, id)).find((d) => d.id === other!.id)?.attempt_count).toBe(1);
    const recovered = json<{ recovered: { requeued: number; replayed: boolean } }>(
      await brandctl('receiver', 'recover', id, '--since', '1h', '--yes', '--json'),
    );
    expect(recovered.recovered).toMatchObject({ requeued: 1, replayed: false });
    await r.server.waitFor(
      (rx) => rx.filter((d) => d.outcome === 'processed').length === 2,
      15_000,
    );

    const health = json<{
      windows: Array<{ window: string; attempts: number; succeeded: number }>;
    }>(await brandctl('receiver', 'health', id, '--json'));
    expect(health.windows[0]).toMatchObject({ window: '1h', attempts: 4, succeeded: 2 });
    const text = await brandctl('receiver', 'health', id);
    expect(text.stdout).toMatch(/^Healthy/);
    expect(text.stdout).toMatch(/1h +4 +50% +/);
  });

  it('says the bounds in --help', async () => {
    // commander wraps help to the terminal's width
    const words = (r: { stdout: string }) => r.stdout.replace(/\s+/g, ' ');
    const recover = words(await brandctl('receiver', 'recover', '--help'));
    expect(recover).toMatch(/14 days back, 10,000 per run/);
    expect(recover).toMatch(/--json/);
    const switchHelp = words(await brandctl('receiver', 'switch-secret', '--help'));
    expect(switchHelp).toMatch(/at most 7 days ahead/);
  });
});
