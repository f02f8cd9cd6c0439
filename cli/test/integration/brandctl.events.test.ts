// brandctl events list|follow against the real webhooks service consuming a real Kafka topic: the
// operator's view of a brand's events feed is what GET /api/v1/events answers the brand (each
// event the receiver's body), newest first or oldest first after a position, filtered by type;
// follow prints every event after a position once, in feed order, then each new one, as JSON
// lines and nothing else on stdout, and stops cleanly on SIGINT saying on stderr where to read
// on; with --checkpoint it reads on from the file, locked against a second follower. A bad
// position is a usage error, not a call; one beyond the feed's head is refused by the service.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeBusinessEvent, REPO_ROOT, TEST_ADMIN_TOKEN, waitFor } from '@brand/testkit';
import type { BusinessEvent } from '@brand/proto/events/v1';
import { brandctl as run, json } from './brandctlRun';
import {
  newBrandId,
  startHarness,
  type Harness,
} from '../../../services/webhooks/test/integration/harness';

let h: Harness;
const brandctl = (...args: string[]) => run(h, ...args);
const brandId = newBrandId();
/** What was published for the brand, in publish order. */
const published: BusinessEvent[] = [];

interface FeedEvent {
  id: string;
  type: string;
  data: { object: { id: string } };
}

async function listed(
  ...args: string[]
): Promise<{ events: FeedEvent[]; next_after?: number; head: number }> {
  const r = await brandctl('events', 'list', '--brand', brandId, '--json', ...args);
  expect(r.code).toBe(0);
  return json(r);
}

async function publish(events: BusinessEvent[]): Promise<void> {
  published.push(...events);
  await h.producer.publish(events);
  await waitFor(async () => (await listed('--after', '0')).events.length === published.length, {
    timeoutMs: 30_000,
    intervalMs: 200,
    what: `${published.length} events in the feed`,
  });
}

const ids = (events: Array<{ id: string }>) => events.map((e) => e.id);

beforeAll(async () => {
  h = await startHarness({ label: 'brandctlev' });
  // relative to today: webhooks' sweeper drops events past the 30-day history retention
  const base = Date.now() - 86_400_000;
  await publish(
    Array.from({ length: 5 }, (_, i) =>
      makeBusinessEvent({
        brandId,
        type: i % 2 === 0 ? 'payout.paid' : 'submission.approved',
        createdAt: new Date(base + i * 60_000).toISOString(),
      }),
    ),
  );
  // another brand's event: never in this brand's feed
  await h.producer.publish([makeBusinessEvent({ brandId: newBrandId() })]);
}, 60_000);
afterAll(() => h?.close());

describe('brandctl events list', () => {
  it('prints the newest first, oldest first after a position, and by type', async () => {
    const newest = await listed();
    expect(ids(newest.events)).toEqual(ids(published).reverse());
    const forward = await listed('--after', '0', '--limit', '3');
    expect(ids(forward.events)).toEqual(ids(published.slice(0, 3)));
    const rest = await listed('--after', String(forward.next_after), '--limit', '3');
    expect(ids(rest.events)).toEqual(ids(published.slice(3)));
    const paid = await listed('--type', 'payout.paid');
    expect(ids(paid.events)).toEqual(ids(published.filter((_, i) => i % 2 === 0)).reverse());
    expect(paid.events.every((e) => e.type === 'payout.paid')).toBe(true);
  });

  it('prints a table for people, and refuses a position that is not one', async () => {
    const human = await brandctl('events', 'list', '--brand', brandId);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^TIME\s+TYPE\s+RECORD\s+STATUS\s+ID/);
    for (const e of published) expect(human.stdout).toContain(e.id);
    const bad = await brandctl('events', 'list', '--brand', brandId, '--after', '-1');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('must be a feed position');
  });

  it('states the head, and refuses a position beyond it', async () => {
    const { head, next_after } = await listed('--after', '0', '--limit', '200');
    expect(head).toBe(next_after);
    const beyond = await brandctl(
      'events',
      'list',
      '--brand',
      brandId,
      '--after',
      String(head + 1),
      '--json',
    );
    expect(beyond.code).toBe(1);
    expect(json<{ error: { code: string; message: string } }>(beyond).error).toMatchObject({
      code: 'position_beyond_head',
      message: expect.stringContaining(`(${head})`) as string,
    });
  });
});

/** brandctl events follow as a child process; its stdout and stderr as they come. */
function follow(...args: string[]) {
  const child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'cli/bin/brandctl.js'), 'events', 'follow', ...args],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        WEBHOOKS_GRPC_ADDR: h.webhooks.address,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      },
    },
  );
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (b: Buffer) => (out.stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out.stderr += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  /** Every stdout line parsed as JSON: fails if anything else was printed there. */
  const lines = () =>
    out.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as FeedEvent);
  return { child, out, exited, lines };
}

async function stop(child: ChildProcess, exited: Promise<number | null>) {
  child.kill('SIGINT');
  return exited;
}

describe('brandctl events follow', () => {
  it('prints every event after the position once, in feed order, then each new one, until SIGINT', async () => {
    const f = follow('--brand', brandId, '--after', '2', '--interval', '100');
    await waitFor(() => f.lines().length >= 3, { timeoutMs: 20_000, what: 'the first three' });
    const later = [makeBusinessEvent({ brandId }), makeBusinessEvent({ brandId })];
    await publish(later);
    await waitFor(() => f.lines().length >= 5, { timeoutMs: 20_000, what: 'the new events' });
    expect(await stop(f.child, f.exited)).toBe(0);

    // stdout holds the events as JSON lines and nothing else: events.jsonl stays JSON lines
    expect(ids(f.lines())).toEqual(ids(published.slice(2)));
    expect(f.out.stderr).toContain('position 7');
    expect(f.out.stderr).toContain('Stopped after 5 events at position 7; read on with --after 7.');
  });

  it('prints one line per event with --json too', async () => {
    const f = follow('--brand', brandId, '--after', '5', '--interval', '100', '--json');
    await waitFor(() => f.lines().length >= 2, { timeoutMs: 20_000, what: 'two events' });
    expect(await stop(f.child, f.exited)).toBe(0);
    expect(f.out.stdout.trim().split('\n')).toHaveLength(2);
    expect(ids(f.lines())).toEqual(ids(published.slice(5)));
  });

  describe('--checkpoint FILE', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'brandctl-follow-'));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('reads on from the file across runs, each event once, and refuses a second follower of it', async () => {
      const file = path.join(dir, 'events.checkpoint');
      const first = follow(
        '--brand',
        brandId,
        '--checkpoint',
        file,
        '--limit',
        '3',
        '--interval',
        '100',
      );
      await waitFor(() => first.lines().length >= published.length, {
        timeoutMs: 20_000,
        what: 'every event',
      });
      expect(first.out.stderr).toContain(`Holding ${file}.lock`);
      // a second follower of the same checkpoint would print every event twice: refused
      const second = follow('--brand', brandId, '--checkpoint', file, '--json');
      expect(await second.exited).toBe(1);
      expect(second.out.stdout).toContain('"code":"precondition_failed"');
      expect(second.out.stderr).toMatch(/in use by another follower \(pid \d+/);
      expect(await stop(first.child, first.exited)).toBe(0);
      expect(first.out.stderr).toContain(`${file} holds it: read on with --checkpoint ${file}`);
      expect(ids(first.lines())).toEqual(ids(published));
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
        after: published.length,
        handled: [],
        brand: brandId,
        filters: {},
      });

      // killed, not stopped: its lock stays behind; the next run takes it over and reads on
      const killed = follow('--brand', brandId, '--checkpoint', file, '--interval', '100');
      await waitFor(() => killed.out.stderr.includes('Following from position'), {
        timeoutMs: 20_000,
      });
      killed.child.kill('SIGKILL');
      await killed.exited;
      const more = [makeBusinessEvent({ brandId })];
      await publish(more);
      const next = follow('--brand', brandId, '--checkpoint', file, '--interval', '100');
      await waitFor(() => next.lines().length >= 1, { timeoutMs: 20_000, what: 'the new event' });
      expect(await stop(next.child, next.exited)).toBe(0);
      expect(next.out.stderr).toContain(`Took over the lock of pid ${killed.child.pid}`);
      expect(ids(next.lines())).toEqual(ids(more));
    });

    it('reads on from a file stored with a larger --limit, with a smaller one, each event once', async () => {
      // a run with --limit 4 stopped after handling the first three events of its page
      const file = path.join(dir, 'smaller.checkpoint');
      await writeFile(file, JSON.stringify({ after: 0, handled: ids(published.slice(0, 3)) }));
      const f = follow(
        '--brand',
        brandId,
        '--checkpoint',
        file,
        '--limit',
        '2',
        '--interval',
        '100',
      );
      await waitFor(() => f.out.stderr.includes(`position ${published.length}`), {
        timeoutMs: 20_000,
        what: 'the head',
      });
      expect(await stop(f.child, f.exited)).toBe(0);
      expect(ids(f.lines())).toEqual(ids(published.slice(3)));
    });

    it("records the brand and filters in the file and refuses another brand's or filters' follow", async () => {
      const file = path.join(dir, 'brand-a.checkpoint');
      const first = follow('--brand', brandId, '--checkpoint', file, '--interval', '100');
      await waitFor(() => first.lines().length >= published.length, { timeoutMs: 20_000 });
      expect(await stop(first.child, first.exited)).toBe(0);
      expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
        after: published.length,
        brand: brandId,
        filters: {},
      });

      // brand B read on from brand A's position would skip B's events up to it: refused
      const other = newBrandId();
      const b = follow('--brand', other, '--checkpoint', file, '--json');
      expect(await b.exited).toBe(1);
      expect(b.out.stdout).toContain('"code":"precondition_failed"');
      expect(b.out.stderr).toContain(`${file} holds the position of brand ${brandId}`);
      const typed = follow('--brand', brandId, '--checkpoint', file, '--type', 'payout.paid');
      expect(await typed.exited).toBe(1);
      expect(typed.out.stderr).toContain('read with other filters');

      // a file of an older brandctl (no brand) is read, and from then on holds the brand
      const old = path.join(dir, 'old.checkpoint');
      await writeFile(old, JSON.stringify({ after: published.length - 1, handled: [] }));
      const resumed = follow('--brand', brandId, '--checkpoint', old, '--interval', '100');
      await waitFor(() => resumed.lines().length >= 1, { timeoutMs: 20_000 });
      expect(await stop(resumed.child, resumed.exited)).toBe(0);
      expect(resumed.out.stderr).toContain('records no brand');
      expect(ids(resumed.lines())).toEqual(ids(published.slice(-1)));
      expect(JSON.parse(await readFile(old, 'utf8'))).toMatchObject({ brand: brandId });
    });

    it("over an API key, refuses a file of another brand at the key's first event, printing nothing", async () => {
      const file = path.join(dir, 'key.checkpoint');
      await writeFile(file, JSON.stringify({ after: 0, handled: [], brand: brandId, filters: {} }));
      // a stand-in for the API: the key's brand is another one
      const api = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', etag: '"v1"' });
        const event = { id: 'evt_other', type: 'payout.paid', brand_id: 'br_other', data: {} };
        res.end(
          JSON.stringify({ resource: 'events', count: 1, data: [event], next_after: 1, head: 1 }),
        );
      });
      await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = api.address() as AddressInfo;
        const f = follow(
          '--key',
          'bk_live_x',
          '--url',
          `http://127.0.0.1:${port}`,
          '--checkpoint',
          file,
        );
        expect(await f.exited).toBe(1);
        expect(f.out.stdout).toBe('');
        expect(f.out.stderr).toContain('but this key reads brand br_other');
        expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
          after: 0,
          brand: brandId,
        });
      } finally {
        api.close();
      }
    });

    it('refuses --after with an existing checkpoint file, which already says where to read on', async () => {
      const file = path.join(dir, 'moved.checkpoint');
      const first = follow(
        '--brand',
        brandId,
        '--checkpoint',
        file,
        '--after',
        '4',
        '--interval',
        '100',
      );
      await waitFor(() => first.lines().length >= published.length - 4, { timeoutMs: 20_000 });
      expect(await stop(first.child, first.exited)).toBe(0);
      expect(ids(first.lines())).toEqual(ids(published.slice(4)));
      const moved = follow('--brand', brandId, '--checkpoint', file, '--after', '0');
      expect(await moved.exited).toBe(1);
      expect(moved.out.stderr).toContain(`--after cannot move ${file}`);
    });
  });

  it('needs --brand or an API key, not both', async () => {
    const neither = follow();
    expect(await neither.exited).toBe(2);
    expect(neither.out.stderr).toContain('give --brand <id> (with the admin token) or an API key');
    const both = follow('--brand', brandId, '--key', 'bk_live_x');
    expect(await both.exited).toBe(2);
  });

  // An outside probe (2026-11-30): --url http://<another host> sent the key in clear.
  it('sends an API key over https only, or plain http to this machine', async () => {
    const remote = follow('--key', 'bk_live_x', '--url', 'http://192.0.2.2:47990');
    const exited = await Promise.race([
      remote.exited,
      new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 10_000)),
    ]);
    if (exited === 'still running') remote.child.kill('SIGKILL');
    expect(exited).toBe(2);
    expect(remote.out.stdout).toBe('');
    expect(remote.out.stderr).toContain('would send the API key in clear: use https');
    expect(remote.out.stderr).not.toContain('bk_live_x');
  });
});

describe('brandctl events follow over an API key, while the API answers 503', () => {
  it('says each wait on stderr and reads on when the API answers again', async () => {
    // a stand-in for the API behind a proxy during a deploy: 503 with Retry-After six times
    // (more than the client's own retries), then the brand's one event, at position 1: a read
    // after it finds none, as the API's would (read again before the stop on a loaded machine,
    // the event was printed twice when the stand-in answered it whatever the position)
    let reads = 0;
    const api = createServer((req, res) => {
      if (++reads <= 6) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: { code: 'service_unavailable', message: 'deploying' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', etag: '"v1"' });
      const after = new URL(req.url ?? '/', 'http://api').searchParams.get('after');
      const event = { id: 'evt_after', type: 'payout.paid', brand_id: brandId, data: {} };
      const data = after === '0' ? [event] : [];
      res.end(
        JSON.stringify({ resource: 'events', count: data.length, data, next_after: 1, head: 1 }),
      );
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = api.address() as AddressInfo;
      const url = `http://127.0.0.1:${port}`;
      const f = follow('--key', 'bk_live_x', '--url', url, '--after', '0', '--interval', '100');
      await waitFor(() => f.lines().length >= 1 || f.child.exitCode !== null, {
        timeoutMs: 30_000,
        what: 'the event after the 503s',
      });
      if (f.child.exitCode !== null)
        throw new Error(`brandctl stopped (exit ${f.child.exitCode}):\n${f.out.stderr}`);
      expect(await stop(f.child, f.exited)).toBe(0);
      expect(ids(f.lines())).toEqual(['evt_after']);
      expect(f.out.stderr).toContain(
        `the API at ${url}: 503 service_unavailable; waiting 1000 ms, then reading on from position 0 (failure 1 in a row).`,
      );
    } finally {
      api.close();
    }
  });
});

// Last in the file: it stops the file's webhooks service and brings it back at the same address
// (as a rolling deploy does behind one Service name), which the tests above must not see.
describe('brandctl events follow over the admin token, across a restart of the webhooks service', () => {
  it('waits out UNAVAILABLE and reads on from its position: every event once, still following', async () => {
    const from = published.length - 1;
    const f = follow('--brand', brandId, '--after', String(from), '--interval', '100');
    await waitFor(() => f.lines().length >= 1, { timeoutMs: 20_000, what: 'the last event' });

    const { port } = h.webhooks;
    await h.webhooks.stop();
    // the follower polls every 100 ms: it meets the stopped service several times
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    h.webhooks = await h.another({ GRPC_PORT: String(port) });
    await publish([makeBusinessEvent({ brandId }), makeBusinessEvent({ brandId })]);
    await waitFor(() => f.lines().length >= 3 || f.child.exitCode !== null, {
      timeoutMs: 30_000,
      what: 'the events published after the restart',
    });

    // still following: a follower that gave up says why on stderr
    if (f.child.exitCode !== null)
      throw new Error(`brandctl stopped (exit ${f.child.exitCode}):\n${f.out.stderr}`);
    expect(await stop(f.child, f.exited)).toBe(0);
    expect(ids(f.lines())).toEqual(ids(published.slice(from)));
    expect(f.out.stderr).toMatch(
      /webhooks service at \S+: UNAVAILABLE; waiting \d+ ms, then reading on from position/,
    );
  });
});
