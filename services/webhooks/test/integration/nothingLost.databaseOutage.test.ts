// Nothing lost while PostgreSQL is unreachable: the consumer cannot store the events, so it
// commits no offset and kafkajs retries the batch; workers cannot claim. Once the database
// is back, every event published during the outage reaches the receiver exactly once.
import { makeBusinessEvent, tcpProxy, type TcpProxy } from '@brand/testkit';
import { processedCount } from './burst';
import { newBrandId, startHarness, type Harness, type RegisteredReceiver } from './harness';

let proxy: TcpProxy;
let h: Harness;
const brand = newBrandId();
let r: RegisteredReceiver;

beforeAll(async () => {
  proxy = await tcpProxy({ host: '127.0.0.1', port: 5432 });
  h = await startHarness({ label: 'dbdown', databaseUrl: (url) => proxy.rewrite(url) });
  r = await h.addReceiver({ brandId: brand, events: ['payout.paid'] });
});
afterAll(async () => {
  await proxy?.resume().catch(() => undefined);
  await h?.close();
  await proxy?.close();
});

it('events published while the database is down all arrive once it is back', async () => {
  await proxy.pause();
  const events = Array.from({ length: 50 }, () =>
    makeBusinessEvent({ brandId: brand, type: 'payout.paid' }),
  );
  await h.producer.publish(events);
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  expect(r.server.received).toHaveLength(0);
  await proxy.resume();

  await r.server.waitFor(() => processedCount(r) === events.length, 90_000);
  expect(new Set(r.server.received.map((d) => d.event?.id))).toEqual(
    new Set(events.map((e) => e.id)),
  );
  expect(r.server.received.every((d) => d.outcome === 'processed')).toBe(true);
  // and the service rode it out without restarting
  const state = await Promise.race([
    h.webhooks.exited.then(() => 'exited'),
    new Promise((resolve) => setTimeout(() => resolve('running'), 100)),
  ]);
  expect(state).toBe('running');
}, 150_000);
