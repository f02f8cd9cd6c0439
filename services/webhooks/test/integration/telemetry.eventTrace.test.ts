// Tracing, the event half: one business event is one trace from the outbox to the receiver's
// request. With OTLP configured on records and webhooks, an admin business change (approve a
// submission) yields ONE trace holding the admin RPC's server span and its outbox insert, the
// relay's PRODUCER span, the webhooks consumer's processing, the delivery attempt and its HTTPS
// request to a real receiver; a second change is a second trace. The receiver gets no trace header
// (docs/operating.md "Observing").
import type { RunningReceiver } from '@brand/example-receiver';
import {
  createTestCa,
  createTopic,
  createWebhooksClient,
  deleteTopic,
  makeBrandWithKey,
  startOtlpReceiver,
  startRegisteredReceiver,
  startStack,
  testKafkaBrokers,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type OtlpReceiver,
  type ReceivedSpan,
  type Stack,
  type TestCa,
  type WebhooksClient,
  makePendingSubmissions,
} from '@brand/testkit';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

let stack: Stack;
let ca: TestCa;
let topic: string;
let otlp: OtlpReceiver;
let client: WebhooksClient;
let receiver: RunningReceiver;

beforeAll(async () => {
  ca = createTestCa();
  otlp = await startOtlpReceiver();
  topic = uniqueTopic('trace');
  await createTopic(topic);
  stack = await startStack({
    gateways: 0,
    recordsEnv: {
      KAFKA_BROKERS: testKafkaBrokers().join(','),
      BUSINESS_EVENTS_TOPIC: topic,
      ...otlp.envFor('records'),
    },
    webhooks: {
      topic,
      groupId: uniqueConsumerGroup('trace'),
      caFile: ca.caFile,
      env: otlp.envFor('webhooks'),
    },
  });
  client = createWebhooksClient(stack.webhooks!.address);
}, 120_000);

afterAll(async () => {
  client?.close();
  await receiver?.close();
  await stack?.close();
  await otlp?.close();
  await deleteTopic(topic);
  ca?.remove();
});

/** Approves a fresh pending submission of `brandId`; returns the change's event id. */
async function approveOne(brandId: string): Promise<string> {
  const [pending] = await makePendingSubmissions(stack.db.pool, brandId, 1);
  const change = await stack.admin.records('approveSubmission', { submission_id: pending!.id });
  return change.event_id;
}

/** Every span of the trace the event's publish span belongs to, once all parts arrived. */
async function traceOf(eventId: string): Promise<ReceivedSpan[]> {
  const publish = await waitFor(
    () =>
      otlp.spans.find(
        (s) => s.kind === PRODUCER && s.attributes['messaging.message.id'] === eventId,
      ),
    { timeoutMs: 30_000, what: `the relay's publish span of ${eventId}` },
  );
  return waitFor(
    () => {
      const spans = otlp.spans.filter((s) => s.traceId === publish.traceId);
      const complete =
        spans.some((s) => s.service === 'records' && s.kind === SERVER) &&
        spans.some((s) => s.kind === CONSUMER) &&
        spans.some((s) => s.kind === CLIENT && s.name === 'POST') &&
        // the attempt's span ends last, after its outcome is recorded
        spans.some((s) => s.name.startsWith('deliver '));
      return complete ? spans : undefined;
    },
    { timeoutMs: 30_000, what: `the whole trace of ${eventId}` },
  );
}

it('one business change is one trace: admin RPC, outbox insert, publish, consume, delivery request', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  ({ server: receiver } = await startRegisteredReceiver({
    client,
    ca,
    brandId: brand.brand.id,
    events: ['submission.approved'],
    label: 'traced receiver',
  }));

  const first = await approveOne(brand.brand.id);
  const second = await approveOne(brand.brand.id);
  await receiver.waitFor((r) => r.length >= 2, 30_000);
  expect(receiver.received.every((d) => d.verdict.ok)).toBe(true);

  const [one, two] = [await traceOf(first), await traceOf(second)];
  expect(one[0]!.traceId).not.toBe(two[0]!.traceId);

  for (const [eventId, spans] of [
    [first, one],
    [second, two],
  ] as const) {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const parentOf = (s: ReceivedSpan) => byId.get(s.parentSpanId);

    // records: the admin RPC's server span and, inside it, the outbox insert
    const rpc = spans.find(
      (s) => s.service === 'records' && s.kind === SERVER && /ApproveSubmission/.test(s.name),
    );
    expect(rpc).toBeDefined();
    const insert = spans.find(
      (s) =>
        s.service === 'records' &&
        s.name.startsWith('pg.query:INSERT') &&
        /insert into outbox/i.test(JSON.stringify(s.attributes)),
    );
    expect(insert).toBeDefined();
    // the relay's publish span continues the context the outbox row stored
    const publish = spans.find((s) => s.kind === PRODUCER)!;
    expect(publish).toMatchObject({ service: 'records', name: `send ${topic}` });
    expect(publish.attributes['messaging.message.id']).toBe(eventId);
    expect(parentOf(publish)?.service).toBe('records');
    // the webhooks consumer processed this event in the trace the message headers carried
    const consume = spans.find((s) => s.kind === CONSUMER)!;
    expect(consume.service).toBe('webhooks');
    expect(consume.attributes['messaging.message.id']).toBe(eventId);
    expect(consume.parentSpanId).toBe(publish.spanId);
    expect(spans.some((s) => s.service === 'webhooks' && s.parentSpanId === consume.spanId)).toBe(
      true,
    ); // its event insert
    // the delivery attempt continues the context stored with the event ...
    const deliver = spans.find((s) => s.name === 'deliver submission.approved')!;
    expect(deliver.service).toBe('webhooks');
    expect(deliver.parentSpanId).toBe(consume.spanId);
    expect(deliver.attributes['brand.event.id']).toBe(eventId);
    expect(deliver.attributes['webhook.outcome']).toBe('delivered');
    // ... and its HTTPS request to the receiver is a CLIENT span with the answer's status
    const request = spans.find((s) => s.kind === CLIENT && s.name === 'POST')!;
    expect(request.service).toBe('webhooks');
    expect(request.parentSpanId).toBe(deliver.spanId);
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'server.address': new URL(receiver.url).hostname,
    });
    expect(JSON.stringify(request.attributes)).not.toContain('/hooks'); // no path: it may hold a token
  }

  // receivers are third parties: our trace context is not sent to them
  for (const d of receiver.received) {
    expect(d.headers.traceparent).toBeUndefined();
    expect(d.headers.tracestate).toBeUndefined();
  }
});
