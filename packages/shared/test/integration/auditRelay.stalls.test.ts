// A stalled audit relay must show, and one refused entry must not stall it. The relay of records
// and plans retried its whole outbox forever when the webhooks admin role was unreachable or
// refused the batch, and said so only in a warning: no metric, no alert, and the console's
// "entries waiting" counts only what reached the trail. Now the outbox's waiting entries and the
// age of the oldest are gauges, failures a counter by reason; and a batch refused for one bad
// entry is split down to that entry, which is set aside while the good ones go on, in order.
// The set-aside was this process's memory: every restart pushed such an entry again, and at
// 10,000 a relay stopped setting aside and stalled on the next one until a restart. It is now a
// mark in the outbox (migration audit_outbox_set_aside), with a gauge of its own.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Registry } from 'prom-client';
import type { AuditEntryIn } from '@brand/proto/webhooks/v1/audit';
import { startAuditRelay, startServiceAuditRelay } from '@brand/shared/audit';
import { AppError } from '@brand/shared/errors';
import { createLogger } from '@brand/shared/logger';
import { createEmptyDatabase } from '@brand/testkit';

const log = createLogger({ service: 'audit-relay-test', level: 'silent' });
let db: Awaited<ReturnType<typeof createEmptyDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createEmptyDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => undefined);
  // records' migration 0031 and plans' 0004, the table alone
  await pool.query(`
    create table audit_outbox (
      id bigserial primary key,
      entry_id text collate "C" not null,
      brand_id text collate "C" not null,
      kind text not null check (kind in ('activity', 'request')),
      row_json jsonb not null,
      created_at timestamptz not null default now()
    );
    create index audit_outbox_created on audit_outbox (created_at);`);
  // ...and the set-aside mark, as each service's migration adds it
  await pool.query(
    readFileSync(
      require.resolve('../../../../services/records/migrations/0038_audit_outbox_set_aside.sql'),
      'utf8',
    ),
  );
});
afterAll(async () => {
  await pool?.end();
  await db?.close();
});
beforeEach(() => pool.query('truncate audit_outbox restart identity'));

async function addEntries(ids: string[], opts: { agoSeconds?: number } = {}): Promise<void> {
  for (const id of ids) {
    await pool.query(
      `insert into audit_outbox (entry_id, brand_id, kind, row_json, created_at)
       values ($1, 'brd_1', 'activity', $2, now() - make_interval(secs => $3))`,
      [id, JSON.stringify({ action: id.includes('bad') ? 'bad' : 'ok' }), opts.agoSeconds ?? 0],
    );
  }
}

const waitingIds = async (): Promise<string[]> =>
  (
    await pool.query<{ entry_id: string }>('select entry_id from audit_outbox order by id')
  ).rows.map((r) => r.entry_id);

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(50);
  }
}

/** A port nobody listens on: taken from the system, then given back. */
async function deadAddress(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `127.0.0.1:${port}`;
}

function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

/** The trail as ingestService.ts answers: a whole batch refused for one entry it cannot store. */
function refusingTrail(): {
  push: (entries: AuditEntryIn[]) => Promise<void>;
  stored: string[];
  offered: string[];
} {
  const stored: string[] = [];
  const offered: string[] = [];
  const push = (entries: AuditEntryIn[]): Promise<void> => {
    offered.push(...entries.map((e) => e.id));
    const i = entries.findIndex((e) => e.id.includes('bad'));
    if (i >= 0) return Promise.reject(new AppError('validation_failed', `entries[${i}]: bad`));
    for (const e of entries) if (!stored.includes(e.id)) stored.push(e.id);
    return Promise.resolve();
  };
  return { push, stored, offered };
}

/** Runs a relay of records' outbox handing to `push` until `done`, then stops it (a process). */
async function relayUntil(
  push: (entries: AuditEntryIn[]) => Promise<void>,
  done: () => Promise<boolean>,
): Promise<void> {
  const relay = startAuditRelay(
    { pool, log, push, source: 'records' },
    { pollMs: 20, batchSize: 5, retentionMs: 3600_000 },
  );
  try {
    await until(done, 5_000);
  } finally {
    await relay.stop();
  }
}

describe('the audit relay', () => {
  it('reports a growing outbox and its failures while the webhooks admin role is unreachable', async () => {
    const registry = new Registry();
    const step = startServiceAuditRelay(
      {
        WEBHOOKS_GRPC_ADDR: await deadAddress(),
        AUDIT_RELAY_POLL_MS: 20,
        INTERNAL_TOKEN: 'internal-token',
        GRPC_DEADLINE_MS: 1_000,
      },
      { pool, log, source: 'records', registry },
    );
    try {
      await addEntries(['act_1', 'act_2'], { agoSeconds: 600 });
      await until(async () => {
        const m = await registry.metrics();
        return (sample(m, 'audit_relay_failures_total{reason="unreachable"}') ?? 0) >= 2;
      });
      const before = await registry.metrics();
      expect(sample(before, 'audit_outbox_waiting_entries')).toBe(2);
      expect(sample(before, 'audit_outbox_oldest_waiting_age_seconds')).toBeGreaterThanOrEqual(600);
      expect(sample(before, 'audit_relay_failures_total{reason="refused"}')).toBe(0);

      await addEntries(['act_3', 'act_4', 'act_5']);
      const after = await registry.metrics();
      expect(sample(after, 'audit_outbox_waiting_entries')).toBe(5);
      expect(sample(after, 'audit_outbox_oldest_waiting_age_seconds')).toBeGreaterThanOrEqual(600);
      expect(await waitingIds()).toEqual(['act_1', 'act_2', 'act_3', 'act_4', 'act_5']);
    } finally {
      await step.run();
    }
  });

  it('sets aside the one entry the trail refuses and hands on the others in order', async () => {
    const { push, stored } = refusingTrail();
    const failures: string[] = [];
    let setAside = 0;
    await addEntries(['act_1', 'act_2', 'act_3', 'act_bad', 'act_5', 'act_6', 'act_7']);
    const relay = startAuditRelay(
      {
        pool,
        log,
        push,
        source: 'records',
        observer: { failed: (r) => failures.push(r), setAside: () => (setAside += 1) },
      },
      { pollMs: 20, batchSize: 5, retentionMs: 3600_000 },
    );
    try {
      await until(async () => (await waitingIds()).length === 1, 5_000);
      await addEntries(['act_8']);
      await until(() => Promise.resolve(stored.includes('act_8')), 5_000);
    } finally {
      await relay.stop();
    }
    expect(stored).toEqual(['act_1', 'act_2', 'act_3', 'act_5', 'act_6', 'act_7', 'act_8']);
    expect(await waitingIds()).toEqual(['act_bad']);
    expect(setAside).toBe(1);
    expect(failures).toEqual(['refused']);
  });

  it('keeps an entry set aside across a restart, and counts it apart from the waiting ones', async () => {
    const first = refusingTrail();
    await addEntries(['act_1', 'act_bad', 'act_3'], { agoSeconds: 600 });
    await relayUntil(first.push, async () => (await waitingIds()).length === 1);
    const mark = await pool.query<{ set_aside_at: Date | null; set_aside_reason: string | null }>(
      `select set_aside_at, set_aside_reason from audit_outbox where entry_id = 'act_bad'`,
    );
    expect(mark.rows[0]?.set_aside_at).toBeInstanceOf(Date);
    expect(mark.rows[0]?.set_aside_reason).toContain('entries[0]: bad');

    // A new process (a restart, a rollout): the entry is not offered to the trail again.
    const second = refusingTrail();
    const registry = new Registry();
    const step = startServiceAuditRelay(
      { AUDIT_RELAY_POLL_MS: 20, INTERNAL_TOKEN: 'internal-token' },
      { pool, log, source: 'records', registry },
    );
    await step.run(); // its metrics alone: no WEBHOOKS_GRPC_ADDR, and stopped at once
    await addEntries(['act_4']);
    await relayUntil(second.push, () => Promise.resolve(second.stored.includes('act_4')));
    expect(second.offered).toEqual(['act_4']);
    expect(await waitingIds()).toEqual(['act_bad']);
    const m = await registry.metrics();
    expect(sample(m, 'audit_outbox_set_aside_entries')).toBe(1);
    // The set-aside entry is not a backlog: the relay-behind alert reads these.
    expect(sample(m, 'audit_outbox_waiting_entries')).toBe(0);
    expect(sample(m, 'audit_outbox_oldest_waiting_age_seconds')).toBe(0);

    // An operator who mended it clears the mark; the relay hands it on.
    await pool.query(
      `update audit_outbox set set_aside_at = null, row_json = '{"action":"ok"}',
              entry_id = 'act_mended' where entry_id = 'act_bad'`,
    );
    await relayUntil(second.push, async () => (await waitingIds()).length === 0);
    expect(second.stored).toEqual(['act_4', 'act_mended']);
  });
});
