// A consumer busy with one batch for longer than its group session (the database slow under
// load, a long GC pause, a starved CPU) is dropped from the group by the broker, and its
// offset commit after the batch is refused: "the coordinator is not aware of this member".
// kafkajs treats that as fatal. The service must rejoin and keep delivering in the same
// process (the admin RPCs and the workers share it): under load it used to exit, which is
// what made the benchmark's S6 fail. Here the stall is a lock on the events table held
// longer than the 6 s session while events wait to be stored. (Before the fix this test
// failed: the process exited on "The coordinator is not aware of this member".)
import { makeBusinessEvent } from '@brand/testkit';
import { newBrandId, startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ label: 'fenced', env: { DATABASE_STATEMENT_TIMEOUT_MS: '60000' } });
});
afterAll(() => h?.close());

const processed = (r: { server: { received: Array<{ outcome?: string }> } }) =>
  r.server.received.filter((d) => d.outcome === 'processed').length;

it('rejoins the group after a batch outlived its session, in the same process, and loses nothing', async () => {
  const brand = newBrandId();
  const r = await h.addReceiver({ brandId: brand, events: ['payout.paid'] });
  await h.producer.publish([makeBusinessEvent({ brandId: brand, type: 'payout.paid' })]);
  await r.server.waitFor(() => processed(r) === 1, 30_000);

  const pid = h.webhooks.pid;
  let exitCode: number | null | undefined;
  void h.webhooks.exited.then((code) => (exitCode = code));
  const locker = await h.db.pool.connect();
  try {
    await locker.query('begin');
    await locker.query('lock table webhooks.events in access exclusive mode');
    await h.producer.publish(
      Array.from({ length: 5 }, () => makeBusinessEvent({ brandId: brand, type: 'payout.paid' })),
    );
    // the consumer waits on the lock inside its batch, sending no heartbeat, past the session
    await new Promise((resolve) => setTimeout(resolve, 12_000));
  } finally {
    await locker.query('commit');
    locker.release();
  }

  await r.server.waitFor(() => processed(r) === 6, 60_000);
  await h.producer.publish([makeBusinessEvent({ brandId: brand, type: 'payout.paid' })]);
  await r.server.waitFor(() => processed(r) === 7, 30_000);
  expect(exitCode).toBeUndefined();
  expect(h.webhooks.pid).toBe(pid);
  // the member kept its place (it heartbeats while a chunk waits); had it been dropped, the
  // supervisor would have replaced it (memberSupervisor.test.ts), never the process
  expect(h.webhooks.logs().join('\n')).not.toMatch(/"level":"fatal"/);
}, 150_000);
