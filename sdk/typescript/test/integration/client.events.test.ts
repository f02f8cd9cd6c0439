// client.events against the running system (records, webhooks consuming its own topic, the
// gateway): the walk newest first and by position, the follower handing each event to its
// callback once across a stop in the middle of a page and a resume from what it stored, its
// 304 polls at the head, CursorExpiredError for a position older than the kept history,
// PositionBeyondHeadError for one beyond the head; and brandctl events list/follow reading the
// same feed, over the admin token and with the brand's API key through the gateway.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  BrandRecords,
  CursorExpiredError,
  FROM_OLDEST,
  PositionBeyondHeadError,
  type FeedEvent,
  type FollowCheckpoint,
} from '@brand-records/client';
import {
  createEventProducer,
  createTopic,
  deleteTopic,
  makeBrandWithKey,
  makeBusinessEvent,
  REPO_ROOT,
  startStack,
  TEST_ADMIN_TOKEN,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type BrandWithKey,
  type EventProducer,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
let topic: string;
let producer: EventProducer;
let brand: BrandWithKey;
let client: BrandRecords;
const ids: string[] = [];

async function produce(n: number): Promise<void> {
  const events = Array.from({ length: n }, () =>
    makeBusinessEvent({ brandId: brand.brand.id, type: 'payout.paid' }),
  );
  ids.push(...events.map((e) => e.id));
  await producer.publish(events);
  await waitFor(
    async () => (await client.events.list({ after: 0, limit: 200 })).count >= ids.length,
    { timeoutMs: 30_000, what: `${ids.length} events in the feed` },
  );
}

beforeAll(async () => {
  topic = uniqueTopic('client-events');
  await createTopic(topic);
  stack = await startStack({ webhooks: { topic, groupId: uniqueConsumerGroup('client-events') } });
  brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  client = new BrandRecords({ apiKey: brand.secret, baseUrl: stack.gateway.url });
  producer = await createEventProducer(topic);
  await produce(7);
}, 120_000);

afterAll(async () => {
  await producer?.close();
  await stack?.close();
  await deleteTopic(topic);
});

describe('client.events', () => {
  it('walks every event newest first, and oldest first from a position', async () => {
    const newest: string[] = [];
    for await (const e of client.events.all({ limit: 3 })) newest.push(e.id);
    expect(newest).toEqual([...ids].reverse());
    const oldest: string[] = [];
    for await (const e of client.events.all({ after: 0, limit: 2 })) oldest.push(e.id);
    expect(oldest).toEqual(ids);
  });

  it('follows: each event once across a stop mid-page and a resume from the stored checkpoint', async () => {
    let stored: FollowCheckpoint = FROM_OLDEST;
    const handled: FeedEvent[] = [];
    // the first run stops (as a crash would) after the 3rd event, in the middle of a page of 5
    const first = new AbortController();
    await client.events.follow({
      from: stored,
      limit: 5,
      intervalMs: 100,
      signal: first.signal,
      onEvent: (e) => {
        handled.push(e);
        if (handled.length === 3) first.abort();
      },
      onCheckpoint: (c) => {
        stored = c;
      },
    });
    expect(stored).toEqual({ after: 0, handled: ids.slice(0, 3) });
    // the second run resumes from what was stored, sees the rest and two events produced later
    const second = new AbortController();
    const following = client.events.follow({
      from: JSON.parse(JSON.stringify(stored)) as FollowCheckpoint,
      limit: 5,
      intervalMs: 100,
      signal: second.signal,
      onEvent: (e) => {
        handled.push(e);
      },
      onCheckpoint: (c) => {
        stored = c;
      },
    });
    await waitFor(() => handled.length === 7, { timeoutMs: 10_000 });
    await produce(2);
    await waitFor(() => handled.length === 9, { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    second.abort();
    await following;
    expect(handled.map((e) => e.id)).toEqual(ids);
    expect(stored.handled).toEqual([]);
  });

  it('answers NotModified to a poll at the head, PositionBeyondHeadError past it, and CursorExpiredError past the kept history', async () => {
    const head = await client.events.list({ after: 0, limit: 200 });
    const empty = await client.events.poll({ after: head.next_after! });
    if (empty.notModified) throw new Error('the first poll has no tag to match');
    const again = await client.events.poll({ after: head.next_after!, etag: empty.meta.etag });
    expect(again.notModified).toBe(true);

    // the head: every page states it; after beyond it is refused, never waited on
    expect(head.head).toBe(head.next_after);
    await expect(client.events.list({ after: head.head + 1 })).rejects.toBeInstanceOf(
      PositionBeyondHeadError,
    );

    await stack.db.pool.query(
      `update webhooks.event_feed_heads set expired_through = 3 where brand_id = $1`,
      [brand.brand.id],
    );
    try {
      await expect(client.events.list({ after: 2 })).rejects.toBeInstanceOf(CursorExpiredError);
    } finally {
      await stack.db.pool.query(
        `update webhooks.event_feed_heads set expired_through = 0 where brand_id = $1`,
        [brand.brand.id],
      );
    }
  });
});

describe('brandctl events', () => {
  const BIN = path.join(REPO_ROOT, 'cli/bin/brandctl.js');
  const env = () => ({
    ...process.env,
    RECORDS_GRPC_ADDR: stack.records.address,
    WEBHOOKS_GRPC_ADDR: stack.webhooks!.address,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
  });

  it('lists a page newest first and after a position (--json)', async () => {
    const run = (args: string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(process.execPath, [BIN, ...args], { env: env() }, (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
        ),
      );
    const newest = JSON.parse(
      await run(['events', 'list', '--brand', brand.brand.id, '--limit', '2', '--json']),
    ) as { events: Array<{ id: string }>; next_cursor: string };
    expect(newest.events.map((e) => e.id)).toEqual([...ids].reverse().slice(0, 2));
    expect(newest.next_cursor).not.toBe('');
    const after = JSON.parse(
      await run(['events', 'list', '--brand', brand.brand.id, '--after', '0', '--json']),
    ) as { events: Array<{ id: string }>; next_after: number };
    expect(after.events.map((e) => e.id)).toEqual(ids);
  });

  it('follows: every event as a JSON line, then stops on SIGINT with the position to read on', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'events', 'follow', '--brand', brand.brand.id, '--after', '0', '--interval', '200'],
      { env: env() },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    await waitFor(() => out.split('\n').filter(Boolean).length >= ids.length, {
      timeoutMs: 15_000,
      what: 'brandctl events follow to print every event',
    });
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const printed = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(printed).toEqual(ids);
    expect(code).toBe(0);
    expect(err).toContain('position');
  });

  it('follows with the brand API key through the gateway (no admin token, no gRPC): JSON lines, read on from --checkpoint', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'brandctl-key-'));
    const file = path.join(dir, 'events.checkpoint');
    const unreachable = '127.0.0.1:1';
    const run = () => {
      const child = spawn(
        process.execPath,
        [BIN, 'events', 'follow', '--url', stack.gateway.url, '--checkpoint', file],
        {
          env: {
            ...process.env,
            BRAND_RECORDS_KEY: brand.secret,
            // nothing but the public API is reachable from behind the firewall
            RECORDS_GRPC_ADDR: unreachable,
            WEBHOOKS_GRPC_ADDR: unreachable,
            ADMIN_TOKEN: '',
          },
        },
      );
      const out = { stdout: '', stderr: '' };
      child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const printed = () =>
        out.stdout
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => (JSON.parse(l) as FeedEvent).id);
      return { child, out, exited, printed };
    };
    try {
      const first = run();
      await waitFor(() => first.printed().length >= ids.length, {
        timeoutMs: 15_000,
        what: 'brandctl events follow --key to print every event',
      });
      first.child.kill('SIGINT');
      expect(await first.exited).toBe(0);
      expect(first.printed()).toEqual(ids);
      expect(first.out.stderr).toContain(`Stopped after ${ids.length} events`);
      await produce(1);
      const second = run();
      await waitFor(() => second.printed().length >= 1, { timeoutMs: 15_000 });
      second.child.kill('SIGINT');
      expect(await second.exited).toBe(0);
      expect(second.printed()).toEqual(ids.slice(-1));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('examples/follower (the firewall-bound integration)', () => {
  const MAIN = path.join(REPO_ROOT, 'examples/follower/dist/main.js');

  /** Runs the example until it printed `lines` events (or 3 s of quiet), then SIGINTs it. */
  async function runExample(checkpointFile: string, lines: number): Promise<string[]> {
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        BRAND_RECORDS_URL: stack.gateway.url,
        BRAND_RECORDS_KEY: brand.secret,
        CHECKPOINT_FILE: checkpointFile,
      },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const printed = () => out.split('\n').filter(Boolean);
    if (lines > 0) await waitFor(() => printed().length >= lines, { timeoutMs: 15_000 });
    else await new Promise((r) => setTimeout(r, 3_000));
    child.kill('SIGINT');
    await new Promise((resolve) => child.on('exit', resolve));
    return printed().map((line) => line.split(' ').pop()!);
  }

  it('prints every event once, and after a restart only what is new', async () => {
    const file = path.join(
      await import('node:os').then((os) => os.tmpdir()),
      `follower-${brand.brand.id}.checkpoint`,
    );
    const first = await runExample(file, ids.length);
    expect(first).toEqual(ids);
    expect(await runExample(file, 0)).toEqual([]);
    await produce(1);
    expect(await runExample(file, 1)).toEqual(ids.slice(-1));
  });
});

// client.auditLog on the same stack (issue 63): records hands its activity to the webhooks
// service, which serves it to a key with audit:read.
describe('client.auditLog', () => {
  it('walks the audit log newest first and oldest first from a position, with audit:read only', async () => {
    const auditor = await makeBrandWithKey(stack.admin, { permissions: ['audit:read'] });
    const audit = new BrandRecords({ apiKey: auditor.secret, baseUrl: stack.gateway.url });
    await stack.admin.createKey({ brandId: auditor.brand.id, actorEmail: auditor.owner.email });
    const page = await waitFor(
      async () => {
        const p = await audit.auditLog.list({ kind: 'activity' });
        return p.data.filter((e) => e.action === 'key.created').length >= 2 ? p : undefined;
      },
      { timeoutMs: 15_000, what: 'both keys created in the audit log' },
    );
    expect(page.resource).toBe('audit_log');
    const newest: number[] = [];
    for await (const e of audit.auditLog.all({ limit: 1 })) newest.push(e.position);
    expect(newest).toEqual(Array.from({ length: page.head }, (_, i) => page.head - i));
    const oldest: string[] = [];
    for await (const e of audit.auditLog.all({ after: 0 })) oldest.push(e.action);
    expect(oldest.slice(0, 2)).toEqual(['key.created', 'key.created']);
    // the events key has no audit:read
    await expect(client.auditLog.list()).rejects.toMatchObject({
      code: 'insufficient_permission',
      status: 403,
    });
  });
});
