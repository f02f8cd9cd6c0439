// brandctl receiver ... end to end against the real webhooks service and a real HTTPS
// receiver: the secret is printed once and verifies real deliveries; the Test action says
// queued (not delivered) and `deliveries` then shows its outcome; refusals carry the
// service's code with exit 1; only a brand owner (asked of a real records service) adds a
// receiver; every command has --help.
import { makeBusinessEvent, startStack, waitFor, type Stack } from '@brand/testkit';
import { brandctlAt, json } from './brandctlRun';
import {
  newBrandId,
  startHarness,
  type Harness,
  type RegisteredReceiver,
} from '../../../services/webhooks/test/integration/harness';

let h: Harness;
/** Records alone: the brand, its owner and its admin, whom `receiver add` asks about. */
let records: Stack;
let brand: string;
const OWNER = 'owner@cli.test';
const ADMIN = 'admin@cli.test';
const brandctl = (...args: string[]) =>
  brandctlAt({ webhooks: h.webhooks.address, records: records.records.address }, ...args);

interface ReceiverOut {
  id: string;
  events: string[];
  enabled: boolean;
  last_status: number | null;
  failure_count: number;
}
interface DeliveryOut {
  id: string;
  event_type: string;
  test: boolean;
  status: string;
  attempt_count: number;
  last_status: number | null;
}

beforeAll(async () => {
  [h, records] = await Promise.all([
    startHarness({ label: 'brandctl' }),
    startStack({ gateways: 0 }),
  ]);
  const made = await records.admin.createBrand({ tier: 'plus', verified: true, ownerEmail: OWNER });
  brand = made.brand.id;
  await records.admin.addMember({ brandId: brand, email: ADMIN, role: 'admin' });
});
afterAll(async () => {
  await h?.close();
  await records?.close();
});

describe('brandctl receiver', () => {
  let target: RegisteredReceiver;
  let receiverId: string;
  let secret: string;

  it('add prints the receiver and its secret once, with a warning', async () => {
    // a receiver server to point at; its own registration is only used for its URL
    target = await h.addReceiver({ brandId: newBrandId(), events: ['payout.paid'] });
    const human = await brandctl(
      ...['receiver', 'add', '--brand', brand, '--url', `${target.server.url}/cli`],
      ...['--label', 'CLI hook', '--events', 'payout.paid,campaign.settled', '--actor', OWNER],
    );
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Signing secret \(shown once\):\n\n {4,}whsec_[0-9A-Za-z]{32}\n/);
    expect(human.stdout).toMatch(/will not be shown again/);

    const r = await brandctl(
      ...['receiver', 'add', '--brand', brand, '--url', `${target.server.url}/cli2`],
      ...['--label', 'CLI hook 2', '--events', 'payout.paid', '--actor', OWNER, '--json'],
    );
    expect(r.code).toBe(0);
    const out = json<{ receiver: ReceiverOut; secret: string }>(r);
    expect(out.receiver).toMatchObject({
      events: ['payout.paid'],
      enabled: true,
      last_status: null,
      failure_count: 0,
    });
    expect(out.secret).toMatch(/^whsec_/);
    expect(r.stderr).toMatch(/shown once/);
    receiverId = out.receiver.id;
    secret = out.secret;
    // the target server now verifies with this receiver's secret too
    target.secrets.push(secret);
  });

  it('add refuses an actor who is not an owner of the brand, as key create does, adding nothing', async () => {
    const add = (actor: string) =>
      brandctl(
        ...['receiver', 'add', '--brand', brand, '--url', `${target.server.url}/refused`],
        ...['--label', 'Refused', '--events', 'payout.paid', '--actor', actor, '--json'],
      );
    const admin = await add(ADMIN);
    expect(admin.code).toBe(1);
    expect(json<{ error: { code: string; message: string } }>(admin).error).toEqual({
      code: 'insufficient_permission',
      message: `Only a brand owner can add receivers: ${ADMIN} is a brand admin.`,
    });
    const stranger = await add('someone@else.test');
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toContain('someone@else.test is not a member of this brand');
    // the owner, whatever the letter case
    const owner = await add(OWNER.toUpperCase());
    expect(owner.code).toBe(0);
    await brandctl('receiver', 'remove', json<{ receiver: ReceiverOut }>(owner).receiver.id);
    const listed = json<{ receivers: Array<{ label: string }> }>(
      await brandctl('receiver', 'list', '--brand', brand, '--json'),
    );
    expect(listed.receivers.map((r) => r.label)).not.toContain('Refused');
  });

  it('list never shows secrets', async () => {
    const r = await brandctl('receiver', 'list', '--brand', brand, '--json');
    expect(r.code).toBe(0);
    expect(json<{ receivers: ReceiverOut[] }>(r).receivers).toHaveLength(2);
    expect(r.stdout).not.toMatch(/whsec_/);
    const human = await brandctl('receiver', 'list', '--brand', brand);
    expect(human.stdout).toMatch(/CLI hook 2/);
    expect(human.stdout).not.toMatch(/whsec_/);
  });

  it('test says queued, not delivered, and deliveries then shows the outcome', async () => {
    const r = await brandctl('receiver', 'test', receiverId);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/queued \(not yet delivered\)/);
    const j = json<{ delivery: DeliveryOut; queued: boolean; delivered: boolean }>(
      await brandctl('receiver', 'test', receiverId, '--json'),
    );
    expect(j).toMatchObject({
      queued: true,
      delivered: false,
      delivery: { test: true, event_type: 'payout.paid' },
    });

    const done = await waitFor(
      async () => {
        const list = json<{ deliveries: DeliveryOut[] }>(
          await brandctl('receiver', 'deliveries', receiverId, '--json'),
        );
        return list.deliveries.length === 2 && list.deliveries.every((d) => d.status !== 'pending')
          ? list
          : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    for (const d of done.deliveries) {
      expect(d).toMatchObject({
        test: true,
        status: 'succeeded',
        attempt_count: 1,
        last_status: 200,
      });
    }
    const verified = target.server.received.filter((x) => x.verdict.ok && x.event?.test === true);
    expect(verified).toHaveLength(2);
    expect(verified[0]!.event?.data.object.id).toMatch(/Sample$/);
    const human = await brandctl('receiver', 'deliveries', receiverId);
    expect(human.stdout).toMatch(/succeeded/);
  });

  it('a failed test delivery shows as failed and never counts as a failure', async () => {
    const failing = await h.addReceiver({
      brandId: brand,
      events: ['submission.rejected'],
      respondWith: () => 500,
    });
    expect((await brandctl('receiver', 'test', failing.receiver.id)).code).toBe(0);
    const done = await waitFor(
      async () => {
        const list = json<{ deliveries: DeliveryOut[] }>(
          await brandctl('receiver', 'deliveries', failing.receiver.id, '--json'),
        );
        return list.deliveries[0]?.status === 'failed' ? list.deliveries[0] : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(done).toMatchObject({ test: true, attempt_count: 1, last_status: 500 });
    const list = json<{ receivers: ReceiverOut[] }>(
      await brandctl('receiver', 'list', '--brand', brand, '--json'),
    );
    expect(list.receivers.find((x) => x.id === failing.receiver.id)).toMatchObject({
      last_status: 500,
      failure_count: 0,
      enabled: true,
    });
    await h.client.call('removeReceiver', { receiver_id: failing.receiver.id });
  });

  it('update changes events and state; resend re-queues; remove removes', async () => {
    const u = json<{ receiver: ReceiverOut }>(
      await brandctl(
        'receiver',
        'update',
        receiverId,
        '--events',
        'campaign.settled',
        '--disable',
        '--json',
      ),
    );
    expect(u.receiver).toMatchObject({ events: ['campaign.settled'], enabled: false });
    const { deliveries } = json<{ deliveries: DeliveryOut[] }>(
      await brandctl('receiver', 'deliveries', receiverId, '--json'),
    );
    const refusedResend = await brandctl('receiver', 'resend', deliveries[0]!.id, '--json');
    expect(refusedResend.code).toBe(1);
    expect(json<{ error: { code: string } }>(refusedResend).error.code).toBe('precondition_failed');
    await brandctl('receiver', 'update', receiverId, '--enable');
    // enabled, but narrowed to campaign.settled: a payout.paid delivery is not sent to it again
    const unselected = json<{ error: { code: string; message: string } }>(
      await brandctl('receiver', 'resend', deliveries[0]!.id, '--json'),
    );
    expect(unselected.error).toMatchObject({
      code: 'precondition_failed',
      message: expect.stringContaining('no longer selects payout.paid') as string,
    });
    await brandctl('receiver', 'update', receiverId, '--events', 'payout.paid,campaign.settled');
    const resent = json<{ delivery: DeliveryOut; queued: boolean }>(
      await brandctl('receiver', 'resend', deliveries[0]!.id, '--json'),
    );
    expect(resent).toMatchObject({ queued: true, delivery: { status: 'pending' } });
    const rm = await brandctl('receiver', 'remove', receiverId, '--json');
    expect(rm.code).toBe(0);
    expect(json<{ removed: boolean }>(rm).removed).toBe(true);
    expect((await brandctl('receiver', 'remove', receiverId, '--json')).code).toBe(1);
  });

  it('refuses bad input with the service’s reason and exit 1, or a usage error with exit 2', async () => {
    const http = await brandctl(
      ...['receiver', 'add', '--brand', brand, '--url', 'http://hooks.example/x', '--label', 'x'],
      ...['--events', 'payout.paid', '--actor', OWNER, '--json'],
    );
    expect(http.code).toBe(1);
    const error = json<{ error: { code: string; message: string } }>(http).error;
    expect(error.code).toBe('validation_failed');
    expect(error.message).toMatch(/https/);
    const slack = await brandctl(
      ...['receiver', 'add', '--brand', brand, '--url', 'https://hooks.slack.com/services/T/B/x'],
      ...['--label', 'x', '--events', 'payout.paid', '--actor', OWNER],
    );
    expect(slack.code).toBe(1);
    expect(slack.stderr + slack.stdout).toMatch(/examples\/relay/);
    const badType = await brandctl(
      ...['receiver', 'add', '--brand', brand, '--url', 'https://x.example/', '--label', 'x'],
      ...['--events', 'invoice.paid', '--actor', OWNER],
    );
    expect(badType.code).toBe(2);
    expect(badType.stderr).toMatch(/unknown: invoice.paid/);
  });

  it.each(['add', 'list', 'update', 'remove', 'test', 'deliveries', 'resend'])(
    '%s has --help',
    async (cmd) => {
      const r = await brandctl('receiver', cmd, '--help');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/--json/);
    },
  );
});

describe('brandctl receiver deliveries: the log with filters and pages', () => {
  const logBrand = newBrandId();
  let receiverId: string;
  const payoutId = `po_cli${Date.now()}`;

  beforeAll(async () => {
    // payouts are taken, submissions refused (503: they wait for a retry a minute or more away)
    const r = await h.addReceiver({
      brandId: logBrand,
      events: ['payout.paid', 'submission.approved'],
      respondWith: (_n, d) =>
        d.verdict.ok && d.verdict.event.type === 'submission.approved' ? 503 : undefined,
    });
    receiverId = r.receiver.id;
    const events = [
      ...Array.from({ length: 4 }, (_, i) =>
        makeBusinessEvent({
          brandId: logBrand,
          type: 'payout.paid',
          object: { resource: 'payouts', id: i === 0 ? payoutId : `po_cli${i}x`, status: 'paid' },
        }),
      ),
      ...Array.from({ length: 2 }, () =>
        makeBusinessEvent({ brandId: logBrand, type: 'submission.approved' }),
      ),
    ];
    await h.producer.publish(events);
    await waitFor(
      async () => {
        const list = json<{ deliveries: DeliveryOut[] }>(
          await brandctl('receiver', 'deliveries', receiverId, '--json'),
        );
        return list.deliveries.length === 6 && list.deliveries.every((d) => d.attempt_count >= 1)
          ? true
          : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
  });

  const list = async (...args: string[]) =>
    json<{ deliveries: DeliveryOut[]; next_cursor: string | null }>(
      await brandctl('receiver', 'deliveries', receiverId, ...args, '--json'),
    );

  it('filters by state (delivered, waiting, failed), event type and record id', async () => {
    expect((await list('--status', 'delivered')).deliveries).toHaveLength(4);
    const waiting = await list('--status', 'waiting');
    expect(waiting.deliveries.map((d) => d.event_type)).toEqual([
      'submission.approved',
      'submission.approved',
    ]);
    expect(await list('--status', 'failed')).toEqual({
      deliveries: [],
      next_cursor: null,
      history_retention_days: 30,
    });
    expect((await list('--event', 'payout.paid', '--since', '1h')).deliveries).toHaveLength(4);
    expect((await list('--until', '1h')).deliveries).toHaveLength(0);
    const byRecord = json<{ deliveries: DeliveryOut[] }>(
      await brandctl(
        'receiver',
        'deliveries',
        '--brand',
        logBrand,
        '--record-id',
        payoutId,
        '--json',
      ),
    );
    expect(byRecord.deliveries).toHaveLength(1);
  });

  it('pages with --limit and --cursor, or all at once with --all', async () => {
    const first = await list('--limit', '4');
    expect(first.deliveries).toHaveLength(4);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await list('--limit', '4', '--cursor', first.next_cursor!);
    expect(second.deliveries).toHaveLength(2);
    expect(second.next_cursor).toBeNull();
    const ids = [...first.deliveries, ...second.deliveries].map((d) => d.id);
    expect(new Set(ids).size).toBe(6);
    const all = await list('--all', '--limit', '2');
    expect(all.deliveries.map((d) => d.id)).toEqual(ids);
    expect(all.next_cursor).toBeNull();
    const human = await brandctl('receiver', 'deliveries', receiverId, '--limit', '4');
    expect(human.stdout).toContain(`--cursor ${first.next_cursor}`);
  });

  it('refuses a bad filter: usage errors exit 2, the service’s refusals exit 1', async () => {
    const badState = await brandctl('receiver', 'deliveries', receiverId, '--status', 'lost');
    expect(badState.code).toBe(2);
    expect(badState.stderr).toMatch(/delivered, waiting or failed/);
    const badType = await brandctl('receiver', 'deliveries', receiverId, '--event', 'invoice.paid');
    expect(badType.code).toBe(2);
    const badCursor = await brandctl(
      'receiver',
      'deliveries',
      receiverId,
      '--cursor',
      'abc',
      '--json',
    );
    expect(badCursor.code).toBe(1);
    const cursorError = json<{ error: { code: string; message: string } }>(badCursor).error;
    expect(cursorError.code).toBe('validation_failed');
    expect(cursorError.message).toMatch(/cursor/);
    const badTime = await brandctl('receiver', 'deliveries', receiverId, '--since', 'tuesday');
    expect(badTime.code).toBe(1);
  });
});

// brandctl stream (issue 63) against the same webhooks service: a token read from a file and
// never printed, an HTTPS stream's secret printed once, the list, a Test, a disable and a removal,
// and a destination the egress policy refuses (exit 1, validation_failed).
describe('brandctl stream', () => {
  const TOKEN = 'hec-cli-token-5b1f0c2e';
  let tokenFile: string;

  beforeAll(async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    tokenFile = `${await mkdtemp(`${tmpdir()}/brandctl-stream-`)}/hec.token`;
    await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  });

  it('adds, lists, tests, disables and removes streams, never printing a token', async () => {
    const target = await h.addReceiver({ brandId: newBrandId(), events: ['payout.paid'] });
    const splunk = await brandctl(
      ...['stream', 'add', '--brand', brand, '--kind', 'splunk_hec', '--label', 'Splunk'],
      ...['--url', `${target.server.url}/services/collector/event`, '--token-file', tokenFile],
      ...['--splunk-index', 'audit', '--actor', OWNER, '--json'],
    );
    expect(splunk.code).toBe(0);
    expect(splunk.stdout + splunk.stderr).not.toContain(TOKEN);
    const added = json<{ stream: { id: string; splunk_index: string }; signing_secret: string }>(
      splunk,
    );
    expect(added.stream.splunk_index).toBe('audit');
    expect(added.signing_secret).toBe('');
    const https = await brandctl(
      ...['stream', 'add', '--brand', brand, '--kind', 'https', '--label', 'SIEM'],
      ...['--url', `${target.server.url}/audit`, '--actor', OWNER],
    );
    expect(https.code).toBe(0);
    expect(https.stdout).toMatch(/Signing secret \(shown once\):\n\n {4,}whsec_/);

    const list = json<{ streams: Array<{ id: string; kind: string }> }>(
      await brandctl('stream', 'list', '--brand', brand, '--json'),
    );
    expect(list.streams.map((s) => s.kind)).toEqual(['https', 'splunk_hec']);
    expect(JSON.stringify(list)).not.toContain(TOKEN);

    const tested = await brandctl('stream', 'test', added.stream.id);
    expect(tested.stdout).toMatch(/^Test entry queued \(dlv_\w+\); queued is not delivered/);
    const shown = json<{ deliveries: Array<{ test: boolean }> }>(
      await brandctl('stream', 'show', added.stream.id, '--json'),
    );
    expect(shown.deliveries.some((d) => d.test)).toBe(true);

    const disabled = json<{ stream: { enabled: boolean } }>(
      await brandctl('stream', 'update', added.stream.id, '--disable', '--json'),
    );
    expect(disabled.stream.enabled).toBe(false);
    expect((await brandctl('stream', 'remove', added.stream.id)).code).toBe(0);
    const after = json<{ streams: unknown[] }>(
      await brandctl('stream', 'list', '--brand', brand, '--json'),
    );
    expect(after.streams).toHaveLength(1);
  });

  it('refuses a destination outside the egress policy with the service’s 4xx code', async () => {
    const refused = await brandctl(
      ...['stream', 'add', '--brand', brand, '--kind', 'https', '--label', 'x'],
      ...['--url', 'https://10.1.2.3/audit', '--actor', OWNER, '--json'],
    );
    expect(refused.code).toBe(1);
    expect(json<{ error: { code: string; message: string } }>(refused).error).toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(/^url: .*not a public address/) as string,
    });
  });
});

// Every receiver and stream command that records an --actor checks it as `receiver add` does (a
// standing left-out until 2026-11-30: only `add` asked records; the others wrote any name given
// into the activity log). A brand admin and a stranger are refused before anything changes or is
// recorded; an owner, in any letter case, acts and is named.
describe('brandctl: every --actor on receivers and streams is checked', () => {
  it('refuses a brand admin and a stranger on each command, recording nothing; an owner acts', async () => {
    const target = await h.addReceiver({ brandId: brand, events: ['payout.paid'] });
    const receiverId = target.receiver.id;
    const added = await brandctl(
      ...['stream', 'add', '--brand', brand, '--kind', 'https', '--label', 'Actors'],
      ...['--url', `${target.server.url}/audit-actors`, '--actor', OWNER, '--json'],
    );
    const streamId = json<{ stream: { id: string } }>(added).stream.id;
    /** Each command that records an actor, with what the refusal says the owner alone can do. */
    const commands: Array<[string, string[]]> = [
      ['rotate signing secrets', ['receiver', 'rotate-secret', receiverId]],
      ['switch signing secrets', ['receiver', 'switch-secret', receiverId]],
      ['cancel secret rotations', ['receiver', 'cancel-rotation', receiverId]],
      ['recover deliveries', ['receiver', 'recover', receiverId, '--since', '1h', '--yes']],
      ['change audit streams', ['stream', 'update', streamId, '--label', 'Renamed']],
      ['test audit streams', ['stream', 'test', streamId]],
      ['send set-aside entries again', ['stream', 'resend-set-aside', streamId]],
      ['remove audit streams', ['stream', 'remove', streamId]],
    ];
    const actingAs = (actor: string): Array<[string, string[]]> =>
      commands.map(([doing, args]) => [doing, [...args, '--actor', actor, '--json']]);

    for (const [doing, args] of actingAs(ADMIN)) {
      const run = await brandctl(...args);
      expect({ args, code: run.code }).toEqual({ args, code: 1 });
      expect(json<{ error: { code: string; message: string } }>(run).error).toEqual({
        code: 'insufficient_permission',
        message: `Only a brand owner can ${doing}: ${ADMIN} is a brand admin.`,
      });
    }
    const stranger = await brandctl(...actingAs('someone@else.test')[4]![1]);
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toContain('someone@else.test is not a member of this brand');

    const named = await h.db.pool.query<{ actor_email: string }>(
      `select actor_email from webhooks.activity where subject_id = any($1) order by created_at`,
      [[receiverId, streamId]],
    );
    // the receiver's registration (operator) and the stream's connection only
    expect(named.rows.map((r) => r.actor_email)).toEqual(['operator', OWNER]);
    const shown = json<{ stream: { label: string } }>(
      await brandctl('stream', 'show', streamId, '--json'),
    );
    expect(shown.stream.label).toBe('Actors');

    // an owner, whatever the letter case, acts and is named; no --actor is still "operator"
    const rotated = await brandctl(
      ...['receiver', 'rotate-secret', receiverId, '--actor', OWNER.toUpperCase(), '--json'],
    );
    expect(rotated.code).toBe(0);
    expect((await brandctl('stream', 'test', streamId)).code).toBe(0);
    // an owner may send set-aside entries again; with none, the service says so (exit 1)
    const none = await brandctl('stream', 'resend-set-aside', streamId, '--actor', OWNER);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`Nothing set aside from audit stream ${streamId}`);
    expect((await brandctl('stream', 'remove', streamId, '--actor', OWNER)).code).toBe(0);
    const after = await h.db.pool.query<{ action: string; actor_email: string }>(
      `select action, actor_email from webhooks.activity where subject_id = any($1)
       order by created_at`,
      [[receiverId, streamId]],
    );
    expect(after.rows.map((r) => r.actor_email)).toEqual([
      'operator',
      OWNER,
      OWNER,
      'operator',
      OWNER,
    ]);
  });
});
