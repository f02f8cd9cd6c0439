// A real signed delivery, verified by the package. A business change made with the records admin
// RPC goes through the outbox, Kafka and the webhooks service to an HTTPS server built with nothing
// but webhookNodeHandler; the handler hands over the typed event. The same receiver registered with
// another receiver's secret refuses the delivery (401), which the service records as a failed
// attempt.
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { EVENT_TYPES } from '@brand/shared/enums';
import { webhookNodeHandler, type WebhookEvent } from '@brand-records/client/webhooks';
import {
  createTestCa,
  createTopic,
  createWebhooksClient,
  deleteTopic,
  makeBrandWithKey,
  makePendingSubmissions,
  startStack,
  testKafkaBrokers,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type Stack,
  type TestCa,
  type WebhooksClient,
} from '@brand/testkit';

let stack: Stack;
let ca: TestCa;
let topic: string;
let client: WebhooksClient;
const servers: https.Server[] = [];

beforeAll(async () => {
  ca = createTestCa();
  topic = uniqueTopic('sdk');
  await createTopic(topic);
  stack = await startStack({
    recordsEnv: { KAFKA_BROKERS: testKafkaBrokers().join(','), BUSINESS_EVENTS_TOPIC: topic },
    webhooks: { topic, groupId: uniqueConsumerGroup('sdk'), caFile: ca.caFile },
  });
  client = createWebhooksClient(stack.webhooks!.address);
});

afterAll(async () => {
  client?.close();
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await stack?.close();
  await deleteTopic(topic);
  ca?.remove();
});

/**
 * An HTTPS receiver made of the package's handler, registered for `brandId`; it verifies with
 * the secret the registration answered (or `verifyWith`, to play a misconfigured receiver).
 */
async function sdkReceiver(brandId: string, verifyWith?: () => string) {
  const events: Array<{ event: WebhookEvent<'submission.approved'>; attempt: number }> = [];
  const refusals: unknown[] = [];
  const secrets: string[] = [];
  const handler = webhookNodeHandler({
    secret: secrets,
    eventTypes: ['submission.approved'],
    onEvent: (event, { attempt }) => {
      events.push({ event, attempt });
    },
    onError: (error) => refusals.push(error),
  });
  const server = https.createServer(ca.tls, (req, res) => void handler(req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const added = await client.call('addReceiver', {
    brand_id: brandId,
    url: `https://127.0.0.1:${port}/hooks`,
    label: 'package receiver',
    events: [EVENT_TYPES.toProto('submission.approved')],
    actor_email: 'owner@brand.test',
  });
  secrets.push(verifyWith ? verifyWith() : added.secret);
  return { events, refusals, secret: added.secret };
}

it('verifies a real delivery of an approved submission and hands over the typed event', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  const receiver = await sdkReceiver(brand.brand.id);
  const [pending] = await makePendingSubmissions(stack.db.pool, brand.brand.id, 1);

  const change = await stack.admin.records('approveSubmission', { submission_id: pending!.id });
  await waitFor(() => receiver.events.length >= 1, { timeoutMs: 30_000 });

  const { event, attempt } = receiver.events[0]!;
  expect(attempt).toBe(1);
  expect(event).toMatchObject({
    id: change.event_id,
    type: 'submission.approved',
    test: false,
    brand_id: brand.brand.id,
    data: { object: { resource: 'submissions', id: pending!.id, status: 'approved' } },
  });
  expect(receiver.refusals).toEqual([]);
});

it('refuses a delivery signed with another secret (401 signature_mismatch), processing nothing', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  const receiver = await sdkReceiver(brand.brand.id, () => 'whsec_notTheSecretOfThisReceiver0000');
  const [pending] = await makePendingSubmissions(stack.db.pool, brand.brand.id, 1);

  await stack.admin.records('approveSubmission', { submission_id: pending!.id });
  await waitFor(() => receiver.refusals.length >= 1, { timeoutMs: 30_000 });

  expect(receiver.events).toEqual([]);
  expect(receiver.refusals[0]).toMatchObject({ reason: 'signature_mismatch', status: 401 });
});
