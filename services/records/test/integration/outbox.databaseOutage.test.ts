// The relay survives PostgreSQL going away. While the database is unreachable a business change is
// refused with service_unavailable (nothing half-done), the relay and its LISTEN connection back
// off without crashing the process, and once the database is back changes are published again,
// woken by NOTIFY (the poll interval is a minute). Regression: a pooled connection lost while
// checked out for a transaction used to emit an unhandled 'error' and crash the process
// (withTransaction now listens for it).
import {
  createAdminClient,
  startRecords,
  startStack,
  stopAllServices,
  tcpProxy,
  waitFor,
  type AdminClient,
  type RecordsProcess,
  type Stack,
  type TcpProxy,
  makePendingSubmissions,
} from '@brand/testkit';
import { createEventTopic, TEST_KAFKA_BROKERS, type EventTopic } from './eventTopic';

let stack: Stack;
let proxy: TcpProxy;
let topic: EventTopic;
let records: RecordsProcess;
let client: AdminClient;
let brandId: string;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  topic = await createEventTopic(1);
  proxy = await tcpProxy({ host: '127.0.0.1', port: 5432 });
  // a relaying records process whose only way to the database is through the proxy
  records = await startRecords({
    databaseUrl: proxy.rewrite(stack.db.url),
    redisKeyPrefix: stack.redisKeyPrefix,
    env: {
      KAFKA_BROKERS: TEST_KAFKA_BROKERS,
      BUSINESS_EVENTS_TOPIC: topic.topic,
      OUTBOX_POLL_MS: '60000',
      OUTBOX_MAX_BACKOFF_MS: '1000',
    },
  });
  client = createAdminClient(records.address);
  brandId = (await stack.admin.createBrand()).brand.id;
});
afterAll(async () => {
  client?.close();
  await stopAllServices();
  await proxy?.close();
  await topic?.close();
  await stack?.close();
});

const approve = async (): Promise<string> => {
  const [sub] = await makePendingSubmissions(stack.db.pool, brandId, 1);
  return (await client.records('approveSubmission', { submission_id: sub!.id })).event_id;
};

const published = (id: string) =>
  waitFor(() => topic.messages.some((m) => m.event?.id === id), {
    timeoutMs: 20_000,
    what: `${id} on Kafka`,
  });

it('relays before, refuses changes during, and relays again after a database outage', async () => {
  await published(await approve());

  await proxy.pause();
  const [sub] = await makePendingSubmissions(stack.db.pool, brandId, 1);
  const refused = await client.records('approveSubmission', { submission_id: sub!.id }).then(
    () => 'ok',
    (err: { code: string }) => err.code,
  );
  expect(refused).toBe('service_unavailable');
  await new Promise((r) => setTimeout(r, 3_000)); // the relay and its listener fail meanwhile
  await proxy.resume();

  // the refused change did nothing
  const { rows } = await stack.db.pool.query<{ status: string }>(
    'select status from submissions where id = $1',
    [sub!.id],
  );
  expect(rows[0]).toEqual({ status: 'pending' });

  // back: the LISTEN connection reconnects and a new change is published promptly
  const after = await waitFor(() => approve().catch(() => undefined), {
    timeoutMs: 10_000,
    what: 'a change accepted again',
  });
  await published(after);
  expect(records.logs().join('\n')).not.toMatch(/"level":"fatal"/);
}, 90_000);
