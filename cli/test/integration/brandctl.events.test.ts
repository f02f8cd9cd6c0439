// brandctl events list|follow against the real webhooks service consuming a real Kafka topic: the
// operator's view of a brand's events feed is what GET /api/v1/events answers the brand (each
// event the receiver's body), newest first or oldest first after a position, filtered by type;
// follow prints every event after a position once, in feed order, then each new one, and stops
// cleanly on SIGINT saying where to read on. A bad position is a usage error, not a call.
import { spawn } from 'node:child_process';
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

async function listed(...args: string[]): Promise<{ events: FeedEvent[]; next_after?: number }> {
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
});

describe('brandctl events follow', () => {
  it('prints every event after the position once, in feed order, then each new one, until SIGINT', async () => {
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'cli/bin/brandctl.js'),
        'events',
        'follow',
        '--brand',
        brandId,
        '--after',
        '2',
        '--interval',
        '100',
      ],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          WEBHOOKS_GRPC_ADDR: h.webhooks.address,
          ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines = () =>
      stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as FeedEvent);

    await waitFor(() => lines().length >= 3, { timeoutMs: 20_000, what: 'the first three' });
    const later = [makeBusinessEvent({ brandId }), makeBusinessEvent({ brandId })];
    await publish(later);
    await waitFor(() => lines().length >= 5, { timeoutMs: 20_000, what: 'the new events' });
    child.kill('SIGINT');
    expect(await exited).toBe(0);

    expect(ids(lines())).toEqual(ids(published.slice(2)));
    expect(stdout).toContain('Stopped after 5 events; read on with --after 7.');
    expect(stderr).toContain('position 7');
  });
});
