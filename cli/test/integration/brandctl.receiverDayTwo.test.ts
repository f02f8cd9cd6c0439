// The day-2 receiver commands of brandctl end to end against the real webhooks service and a real
// verifying HTTPS receiver: rotate-secret prints the new secret once with the steps, test
// --new-secret, switch-secret later or now, cancel-rotation; retry; recover with its preview
// (nothing changes without --yes); health; delivery with what was sent and answered. Refusals carry
// the service's code with exit 1. The real retry schedule (RETRY_TIME_SCALE=1) keeps a failed
// delivery waiting for retry. A records service holds the brand whose owners the --actor runs
// name: brandctl checks an actor is an owner there before it acts in their name.
import { makeBusinessEvent, startStack, waitFor, type Stack } from '@brand/testkit';
import { brandctlAt, json } from './brandctlRun';
import {
  deliveriesOf,
  newBrandId,
  setEnabled,
  startHarness,
  type Harness,
} from '../../../services/webhooks/test/integration/harness';

let h: Harness;
let records: Stack;
/** A brand in records with two owners, who rotate and switch a secret by name. */
let ownedBrand: string;
const brandctl = (...args: string[]) =>
  brandctlAt({ webhooks: h.webhooks.address, records: records.records.address }, ...args);

beforeAll(async () => {
  [h, records] = await Promise.all([
    startHarness({ label: 'brandctl2', env: { RETRY_TIME_SCALE: '1' } }),
    startStack({ gateways: 0 }),
  ]);
  const made = await records.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: 'ana@acme.test',
  });
  ownedBrand = made.brand.id;
  await records.admin.addMember({ brandId: ownedBrand, email: 'ops@acme.test', role: 'owner' });
});
afterAll(async () => {
  await h?.close();
  await records?.close();
});

interface ReceiverOut {
  id: string;
  rotation: { switch_at: string | null; test_status: string | null } | null;
}

describe('brandctl receiver, day 2', () => {
  it('rotates a secret: shown once with the steps, tested, scheduled, switched', async () => {
    const r = await h.addReceiver({ brandId: ownedBrand, events: ['payout.paid'] });
    const id = r.receiver.id;
    const badActor = await brandctl('receiver', 'rotate-secret', id, '--actor', 'ana', '--json');
    expect(badActor.code).toBe(1);
    expect(json<{ error: { code: string } }>(badActor).error.code).toBe('insufficient_permission');
    const rotated = await brandctl('receiver', 'rotate-secret', id, '--actor', 'Ana@Acme.test');
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
      await brandctl('receiver', 'switch-secret', id, '--actor', 'ops@acme.test', '--json'),
    );
    expect(now).toMatchObject({ switched: true, receiver: { rotation: null } });
    // the activity log says who: the named actors, "operator" without --actor
    const { rows } = await h.db.pool.query<{ action: string; actor_email: string }>(
      `select action, actor_email from webhooks.activity where subject_id = $1 order by created_at`,
      [id],
    );
    expect(rows.filter((a) => a.action.startsWith('receiver.secret'))).toEqual([
      { action: 'receiver.secret_rotation_started', actor_email: 'ana@acme.test' },
      { action: 'receiver.secret_switch_scheduled', actor_email: 'operator' },
      { action: 'receiver.secret_switched', actor_email: 'ops@acme.test' },
    ]);
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
    const recorded = (done: (list: Awaited<ReturnType<typeof deliveriesOf>>) => boolean) =>
      waitFor(
        async () => {
          const list = await deliveriesOf(h, id);
          return done(list) ? list : undefined;
        },
        { timeoutMs: 15_000 },
      );
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
    // answering 2xx again catches the receiver up by itself: the other waiting one follows
    await r.server.waitFor(
      (rx) => rx.filter((d) => d.outcome === 'processed').length === 2,
      15_000,
    );
    // the receiver answers before the worker records the attempt: read what was recorded
    const caughtUp = await recorded((list) => list.every((d) => d.completed_at !== ''));
    expect(caughtUp.find((d) => d.id === other!.id)?.attempt_count).toBe(2);

    // one more fails for good (disabling fails what is pending); then recover it
    down = true;
    await h.producer.publish([
      makeBusinessEvent({ brandId: r.receiver.brand_id, type: 'payout.paid' }),
    ]);
    await r.server.waitFor((rx) => rx.length === 5, 15_000);
    await recorded((list) => list.length === 3 && list.some((d) => d.attempt_count === 1));
    await setEnabled(h, id, false);
    await setEnabled(h, id, true);
    down = false;
    const preview = await brandctl('receiver', 'recover', id, '--since', '1h');
    expect(preview.code).toBe(0);
    expect(preview.stdout).toMatch(
      /^1 not delivered since .* \(1 failed, 0 waiting for a retry\)\.\nNothing changed\. Send them now with:\n {2}brandctl receiver recover .* --yes/,
    );
    const recovered = json<{
      recovered: { requeued: number; requeued_failed: number; replayed: boolean };
    }>(await brandctl('receiver', 'recover', id, '--since', '1h', '--yes', '--json'));
    expect(recovered.recovered).toMatchObject({ requeued: 1, requeued_failed: 1, replayed: false });
    await r.server.waitFor(
      (rx) => rx.filter((d) => d.outcome === 'processed').length === 3,
      15_000,
    );
    await recorded((list) => list.every((d) => d.completed_at !== '' && d.last_status === 200));

    const health = json<{
      windows: Array<{ window: string; attempts: number; succeeded: number }>;
    }>(await brandctl('receiver', 'health', id, '--json'));
    expect(health.windows[0]).toMatchObject({ window: '1h', attempts: 6, succeeded: 3 });
    const text = await brandctl('receiver', 'health', id);
    expect(text.stdout).toMatch(/^Healthy.*\nNothing waiting\./);
    expect(text.stdout).toMatch(/1h +6 +50% +/);
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
