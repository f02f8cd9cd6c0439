// Shared set-up of the webhooks integration tests: a throwaway database, a test CA, a topic
// and consumer group of the test file's own, the built webhooks service, and real HTTPS
// example receivers registered through the admin RPCs.
import { createHmac } from 'node:crypto';
import type { ReceivedDelivery, RunningReceiver } from '@brand/example-receiver';
import { ListDeliveriesRequest, type Delivery, type Receiver } from '@brand/proto/webhooks/v1';
import {
  createEventProducer,
  createTestCa,
  createTestDatabase,
  createTopic,
  createWebhooksClient,
  deleteTopic,
  randomHex,
  startRegisteredReceiver,
  startWebhooks,
  stopAllServices,
  testKafkaBrokers,
  uniqueConsumerGroup,
  uniqueTopic,
  type EventProducer,
  type RegisteredReceiver,
  type TestCa,
  type TestDatabase,
  type WebhooksClient,
  type WebhooksProcess,
} from '@brand/testkit';

export type { RegisteredReceiver };

export interface Harness {
  db: TestDatabase;
  ca: TestCa;
  topic: string;
  groupId: string;
  webhooks: WebhooksProcess;
  client: WebhooksClient;
  producer: EventProducer;
  brokers: string[];
  /** Starts the service again (after a kill) with the same settings. */
  restart(): Promise<WebhooksProcess>;
  /** Starts one more webhooks process on the same database, topic and group, with `env`. */
  another(env: Record<string, string>): Promise<WebhooksProcess>;
  /** Starts an HTTPS example receiver and registers it for `brandId` with `events`. */
  addReceiver(
    opts: Omit<Parameters<typeof startRegisteredReceiver>[0], 'client' | 'ca' | 'label'>,
  ): Promise<RegisteredReceiver>;
  close(): Promise<void>;
}

export const newBrandId = (): string => `br_${randomHex(8)}`;

export async function startHarness(
  opts: {
    env?: Record<string, string>;
    brokers?: string[];
    label?: string;
    /** The service's DATABASE_URL from the test database's (e.g. through a tcpProxy). */
    databaseUrl?: (url: string) => string;
  } = {},
): Promise<Harness> {
  const brokers = opts.brokers ?? testKafkaBrokers();
  const db = await createTestDatabase();
  const ca = createTestCa();
  const topic = uniqueTopic(opts.label);
  const groupId = uniqueConsumerGroup(opts.label);
  await createTopic(topic, 3, brokers);
  const start = () =>
    startWebhooks({
      databaseUrl: opts.databaseUrl ? opts.databaseUrl(db.url) : db.url,
      topic,
      groupId,
      caFile: ca.caFile,
      brokers,
      env: opts.env,
    });
  const servers: RunningReceiver[] = [];
  const h: Harness = {
    db,
    ca,
    topic,
    groupId,
    brokers,
    webhooks: await start(),
    client: undefined as unknown as WebhooksClient,
    producer: await createEventProducer(topic, brokers),
    async restart() {
      h.webhooks = await start();
      return h.webhooks;
    },
    another: (env) =>
      startWebhooks({
        databaseUrl: db.url,
        topic,
        groupId,
        caFile: ca.caFile,
        brokers,
        env,
      }),
    async addReceiver(r) {
      const registered = await startRegisteredReceiver({
        ...r,
        client: h.client,
        ca,
        label: `test receiver ${servers.length + 1}`,
      });
      servers.push(registered.server);
      return registered;
    },
    async close() {
      // WEBHOOKS_TEST_LOGS=1 prints the service's log, to read what a failing test saw
      if (process.env.WEBHOOKS_TEST_LOGS) process.stdout.write(`${h.webhooks.logs().join('\n')}\n`);
      h.client.close();
      await h.producer.close().catch(() => undefined);
      await stopAllServices();
      await Promise.all(servers.map((s) => s.close()));
      await deleteTopic(topic, brokers);
      await db.close();
      ca.remove();
    },
  };
  h.client = createWebhooksClient(h.webhooks.address);
  return h;
}

/** The deliveries table of the test database, for assertions on what was queued. */
export async function deliveryRows(
  h: Harness,
  receiverId: string,
): Promise<Array<{ event_id: string; status: string; attempts: number }>> {
  const res = await h.db.pool.query<{ event_id: string; status: string; attempts: number }>(
    `select event_id, status, attempts from webhooks.deliveries where receiver_id = $1`,
    [receiverId],
  );
  return res.rows;
}

/** A receiver as the admin RPC shows it now. */
export async function receiverState(h: Harness, brandId: string, id: string): Promise<Receiver> {
  const { receivers } = await h.client.call('listReceivers', { brand_id: brandId });
  const found = receivers.find((r) => r.id === id);
  if (!found) throw new Error(`receiver ${id} not listed`);
  return found;
}

/** The deliveries of a receiver as the admin RPC shows them, newest first. */
export async function deliveriesOf(h: Harness, receiverId: string): Promise<Delivery[]> {
  return (
    await h.client.call(
      'listDeliveries',
      ListDeliveriesRequest.fromPartial({ receiver_id: receiverId, brand_id: '', limit: 200 }),
    )
  ).deliveries;
}

/** Enables or disables a receiver as an owner would (disabling fails its pending deliveries). */
export async function setEnabled(h: Harness, receiverId: string, enabled: boolean): Promise<void> {
  await h.client.call('updateReceiver', { receiver_id: receiverId, enabled, events: [] });
}

/** Which of `secrets` signed a received request (HMAC over "<timestamp>.<raw body>"). */
export function signedWith(d: ReceivedDelivery, secrets: Record<string, string>): string {
  const ts = String(d.headers['x-service-timestamp']);
  for (const [name, secret] of Object.entries(secrets)) {
    const digest = createHmac('sha256', secret).update(`${ts}.`).update(d.rawBody).digest('hex');
    if (d.headers['x-service-signature'] === `sha256=${digest}`) return name;
  }
  return 'none';
}
