import type { RunningReceiver } from '@brand/example-receiver';
import { EVENT_TYPES } from '@brand/shared/enums';
import {
  createTestCa,
  createTopic,
  createWebhooksClient,
  deleteTopic,
  makeBrandWithKey,
  makePendingSubmissions,
  makeRecords,
  startRegisteredReceiver,
  startStack,
  testKafkaBrokers,
  uniqueConsumerGroup,
  uniqueTopic,
  type Stack,
  type TestCa,
  type WebhooksClient,
} from '@brand/testkit';
import { parse } from 'yaml';
import { RECORD_FIELDS } from '../../src/records/recordSchemas';
import { OpenApiValidator } from '../support/openApiValidator';

// The OpenAPI document describes the four deliveries under `webhooks`, and
// what a real receiver gets is what it says: each of the four business changes goes through
// records, Kafka and the webhooks service to an HTTPS receiver (the example receiver, verifying
// signatures), and its headers and raw body validate against the served document (Ajv).

let stack: Stack;
let ca: TestCa;
let topic: string;
let client: WebhooksClient;
let yaml: string;
const servers: RunningReceiver[] = [];

beforeAll(async () => {
  ca = createTestCa();
  topic = uniqueTopic('openapi-webhooks');
  await createTopic(topic);
  stack = await startStack({
    recordsEnv: { KAFKA_BROKERS: testKafkaBrokers().join(','), BUSINESS_EVENTS_TOPIC: topic },
    webhooks: { topic, groupId: uniqueConsumerGroup('openapi-webhooks'), caFile: ca.caFile },
  });
  client = createWebhooksClient(stack.webhooks!.address);
  yaml = await (await fetch(`${stack.gateway.url}/openapi/service.yaml`)).text();
});

afterAll(async () => {
  client?.close();
  await Promise.all(servers.map((s) => s.close()));
  await stack?.close();
  await deleteTopic(topic);
  ca?.remove();
});

it('the document describes exactly the four deliveries, with their headers', () => {
  const doc = parse(yaml) as {
    webhooks: Record<string, { post: { parameters: Array<{ name: string; in: string }> } }>;
  };
  expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES.names]);
  for (const hook of Object.values(doc.webhooks)) {
    expect(hook.post.parameters.filter((p) => p.in === 'header').map((p) => p.name)).toEqual([
      'X-Service-Event',
      'X-Service-Timestamp',
      'X-Service-Signature',
      'X-Service-Attempt',
    ]);
  }
});

it('a real delivery of each event validates against the served document', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  const brandId = brand.brand.id;
  const { server } = await startRegisteredReceiver({
    client,
    ca,
    brandId,
    events: [...EVENT_TYPES.names],
    label: 'OpenAPI webhooks receiver',
  });
  servers.push(server);

  const [approve, reject] = await makePendingSubmissions(stack.db.pool, brandId, 2);
  const [payout] = await makeRecords(stack.db.pool, brandId, 'payouts', 1, () => ({
    status: 'pending',
  }));
  const [campaign] = await makeRecords(stack.db.pool, brandId, 'campaigns', 1, () => ({
    status: 'completed',
  }));
  await stack.admin.records('approveSubmission', { submission_id: approve!.id });
  await stack.admin.records('rejectSubmission', {
    submission_id: reject!.id,
    reason: 'Brand logo not visible',
  });
  await stack.admin.records('payPayout', { payout_id: payout!.id });
  await stack.admin.records('settleCampaign', { campaign_id: campaign!.id });

  await server.waitFor((r) => r.length >= 4, 60_000);
  const validator = OpenApiValidator.fromYaml(yaml);
  const types = server.received.map((d) => d.headers['x-service-event'] as string);
  expect([...types].sort()).toEqual([...EVENT_TYPES.names].sort());
  for (const delivery of server.received) {
    expect(delivery.verdict.ok).toBe(true);
    const type = delivery.headers['x-service-event'] as string;
    const raw = delivery.rawBody.toString('utf8');
    expect(validator.checkWebhook(type, delivery.headers, raw)).toEqual([]);
    // every field the schema names, and no other: data.object is the record with its resource
    const body = JSON.parse(raw) as { data: { object: { resource: keyof typeof RECORD_FIELDS } } };
    expect(Object.keys(body)).toEqual(['id', 'type', 'created_at', 'test', 'brand_id', 'data']);
    const object = body.data.object;
    expect(Object.keys(object)).toEqual(['resource', ...RECORD_FIELDS[object.resource]]);
  }

  // and the check bites: the same delivery without the record's id, or with another event's
  // type, does not validate
  const first = server.received[0]!;
  const type = first.headers['x-service-event'] as string;
  const body = JSON.parse(first.rawBody.toString('utf8')) as {
    type: string;
    data: { object: Record<string, unknown> };
  };
  delete body.data.object.id;
  expect(validator.checkWebhook(type, first.headers, JSON.stringify(body))).not.toEqual([]);
  const other = EVENT_TYPES.names.find((t) => t !== type)!;
  expect(validator.checkWebhook(other, first.headers, first.rawBody.toString())).not.toEqual([]);
});

it('a Test delivery of each event validates too: its sample is a whole record of its resource', async () => {
  // The Test action sends sample data, not a record; receivers parse it with the same code as
  // a real delivery, so it must have the published shape: every field, null when absent.
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  const { server, receiver } = await startRegisteredReceiver({
    client,
    ca,
    brandId: brand.brand.id,
    events: [...EVENT_TYPES.names],
    label: 'OpenAPI webhooks test receiver',
  });
  servers.push(server);
  for (const type of EVENT_TYPES.names) {
    await client.call('testReceiver', {
      receiver_id: receiver.id,
      event_type: EVENT_TYPES.toProto(type),
      with_new_secret: false,
    });
  }
  await server.waitFor((r) => r.length >= EVENT_TYPES.names.length, 60_000);
  const validator = OpenApiValidator.fromYaml(yaml);
  const types = server.received.map((d) => d.headers['x-service-event'] as string);
  expect([...types].sort()).toEqual([...EVENT_TYPES.names].sort());
  for (const delivery of server.received) {
    expect(delivery.verdict.ok).toBe(true);
    const type = delivery.headers['x-service-event'] as string;
    const raw = delivery.rawBody.toString('utf8');
    const body = JSON.parse(raw) as {
      test: boolean;
      data: { object: { resource: keyof typeof RECORD_FIELDS } };
    };
    expect(body.test).toBe(true);
    const object = body.data.object;
    expect({ type, fields: Object.keys(object) }).toEqual({
      type,
      fields: ['resource', ...RECORD_FIELDS[object.resource]],
    });
    expect({ type, errors: validator.checkWebhook(type, delivery.headers, raw) }).toEqual({
      type,
      errors: [],
    });
  }
});
