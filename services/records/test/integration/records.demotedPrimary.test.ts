// A database failover that leaves the service's connections on the demoted primary (now a
// read-only standby), as some managed failovers do: every write is refused with SQLSTATE 25006.
// Such a write must be a 503 (service_unavailable, as any database outage), never a 500, and
// the service must write again once its address leads to a writable primary, without a restart:
// a connection that met a read-only transaction is dropped, not handed out again (a review of
// 2026-11-29 found 25006 answered internal_error and the connection kept).
import pg from 'pg';
import { adminDatabaseUrl, startStack, type Stack } from '@brand/testkit';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
});
afterAll(async () => {
  await stack?.close();
});

/** Makes the database refuse writes to new sessions, and ends the records service's sessions. */
async function demote(readOnly: boolean): Promise<void> {
  const c = new pg.Client({ connectionString: adminDatabaseUrl() });
  await c.connect();
  try {
    await c.query(
      `alter database "${stack.db.name}" ${readOnly ? 'set default_transaction_read_only = on' : 'reset default_transaction_read_only'}`,
    );
    if (readOnly) {
      await c.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where datname = $1 and application_name like 'records%'`,
        [stack.db.name],
      );
    }
  } finally {
    await c.end();
  }
}

const write = () =>
  stack.admin.createBrand().then(
    () => 'written',
    (err: { code?: string }) => String(err.code),
  );

describe('records on a demoted primary', () => {
  it('answers writes service_unavailable, and writes again once a primary is back, without a restart', async () => {
    expect(await write()).toBe('written');
    await demote(true);
    try {
      // the first call may meet a terminated connection; from then on the standby answers
      const answers = [await write(), await write(), await write()];
      expect(answers).toEqual([
        'service_unavailable',
        'service_unavailable',
        'service_unavailable',
      ]);
    } finally {
      await demote(false);
    }
    // Each connection that meets the standby with a write is dropped, so within as many writes
    // as the pool holds (10) one is written. Kept, a refused connection would be handed out
    // again and again (the pool reuses the last one released): none would be written.
    const after: string[] = [];
    while (after.length < 12 && after.at(-1) !== 'written') after.push(await write());
    expect(after.at(-1)).toBe('written');
  });
});
