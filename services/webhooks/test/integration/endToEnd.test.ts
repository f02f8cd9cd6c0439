// End to end through every process: a business change made with the records service's admin RPC
// (state change + outbox row in one transaction), relayed to Kafka, consumed by the webhooks
// service and delivered to a real HTTPS receiver that verifies the signature as
// docs/contract.md#receiver-verification tells receivers to. The event id the RPC returns is the id
// the receiver gets; another brand's receiver gets nothing.
import type { RunningReceiver } from '@brand/example-receiver';
import {
  createTestCa,
  createTopic,
  createWebhooksClient,
  deleteTopic,
  makeBrandWithKey,
  startRegisteredReceiver,
  startStack,
  testKafkaBrokers,
  uniqueConsumerGroup,
  uniqueTopic,
  type Stack,
  type TestCa,
  type WebhooksClient,
  makePendingSubmissions,
} from '@brand/testkit';

let stack: Stack;
let ca: TestCa;
let topic: string;
let client: WebhooksClient;
const servers: RunningReceiver[] = [];

beforeAll(async () => {
  ca = createTestCa();
  topic = uniqueTopic('e2e');
  await createTopic(topic);
  stack = await startStack({
    recordsEnv: { KAFKA_BROKERS: testKafkaBrokers().join(','), BUSINESS_EVENTS_TOPIC: topic },
    webhooks: { topic, groupId: uniqueConsumerGroup('e2e'), caFile: ca.caFile },
  });
  client = createWebhooksClient(stack.webhooks!.address);
});

afterAll(async () => {
  client?.close();
  await Promise.all(servers.map((s) => s.close()));
  await stack?.close();
  await deleteTopic(topic);
  ca?.remove();
});

/** An HTTPS example receiver registered for `brandId`, verifying with its signing secret. */
async function receiverFor(brandId: string): Promise<RunningReceiver> {
  const { server } = await startRegisteredReceiver({
    client,
    ca,
    brandId,
    events: ['submission.approved'],
    label: 'end-to-end receiver',
  });
  servers.push(server);
  return server;
}

it('an approved submission reaches its brand receiver, signed, with the event id of the change', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  const other = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  const receiver = await receiverFor(brand.brand.id);
  const othersReceiver = await receiverFor(other.brand.id);
  const [pending] = await makePendingSubmissions(stack.db.pool, brand.brand.id, 1);

  const change = await stack.admin.records('approveSubmission', { submission_id: pending!.id });
  expect(change.event_id).toMatch(/^evt_/);

  await receiver.waitFor((r) => r.length >= 1, 30_000);
  const delivery = receiver.received[0]!;
  expect(delivery.verdict.ok).toBe(true);
  expect(delivery.headers['x-service-event']).toBe('submission.approved');
  const body = JSON.parse(delivery.rawBody.toString('utf8')) as {
    id: string;
    type: string;
    test: boolean;
    brand_id: string;
    data: { object: { resource: string; id: string; status: string } };
  };
  expect(body).toMatchObject({
    id: change.event_id,
    type: 'submission.approved',
    test: false,
    brand_id: brand.brand.id,
    data: { object: { resource: 'submissions', id: pending!.id, status: 'approved' } },
  });

  // the REST API shows the same state, and the other brand's receiver got nothing
  const res = await fetch(`${stack.gateway.url}/api/v1/submissions`, {
    headers: { Authorization: `Bearer ${brand.secret}` },
  });
  const page = (await res.json()) as { data: Array<{ id: string; status: string }> };
  expect(page.data.find((s) => s.id === pending!.id)?.status).toBe('approved');
  expect(othersReceiver.received).toHaveLength(0);
});
