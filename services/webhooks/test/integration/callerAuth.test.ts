import { ListDeliveriesRequest, ListEventOutcomesRequest } from '@brand/proto/webhooks/v1';
// Every RPC of the webhooks service requires the admin credential (they are all admin
// RPCs): without a credential, with a wrong one, and with the internal (gateway) token the
// call is refused; with the admin token it is answered. The disable notices' RPCs answer the
// console's credential alone (its mailer). grpc.health.v1 stays open. The signing secrets
// and the secret-encryption key never reach the log.
import { randomUUID } from 'node:crypto';
import { EVENT_TYPES } from '@brand/shared/enums';
import {
  checkGrpcHealth,
  createWebhooksClient,
  callOutcome,
  runCallerAuthTests,
  withCallerToken,
  type CallerAuthRpc,
  TEST_INTERNAL_TOKEN,
  TEST_WEBHOOK_SECRET_KEY,
  waitFor,
  type WebhooksClient,
} from '@brand/testkit';
import { newBrandId, startHarness, type Harness, type RegisteredReceiver } from './harness';

let h: Harness;
let target: RegisteredReceiver;
const brand = newBrandId();
const secrets: string[] = [];

beforeAll(async () => {
  h = await startHarness({ label: 'auth' });
  target = await h.addReceiver({ brandId: brand, events: ['payout.paid'] });
  secrets.push(target.secret);
});
afterAll(() => h?.close());

const RPCS: Array<CallerAuthRpc<WebhooksClient>> = [
  [
    'AddReceiver',
    'admin',
    async (c) => {
      const res = await c.call('addReceiver', {
        brand_id: brand,
        url: `${target.server.url}/auth`,
        label: 'auth',
        events: [EVENT_TYPES.toProto('payout.paid')],
        actor_email: 'owner@auth.test',
      });
      secrets.push(res.secret);
      return res;
    },
  ],
  ['ListReceivers', 'admin', (c) => c.call('listReceivers', { brand_id: brand })],
  [
    'UpdateReceiver',
    'admin',
    (c) =>
      c.call('updateReceiver', { receiver_id: target.receiver.id, label: 'renamed', events: [] }),
  ],
  ['RemoveReceiver', 'admin', (c) => c.call('removeReceiver', { receiver_id: 'rcv_doesNotExist' })],
  [
    'TestReceiver',
    'admin',
    (c) =>
      c.call('testReceiver', {
        receiver_id: target.receiver.id,
        event_type: 0,
        with_new_secret: false,
      }),
  ],
  [
    'ListDeliveries',
    'admin',
    (c) =>
      c.call(
        'listDeliveries',
        ListDeliveriesRequest.fromPartial({
          receiver_id: target.receiver.id,
          brand_id: '',
          limit: 10,
        }),
      ),
  ],
  [
    'ListEventOutcomes',
    'admin',
    (c) =>
      c.call(
        'listEventOutcomes',
        ListEventOutcomesRequest.fromPartial({ brand_id: brand, limit: 5 }),
      ),
  ],
  ['ResendDelivery', 'admin', (c) => c.call('resendDelivery', { delivery_id: 'dlv_doesNotExist' })],
  ['GetReceiver', 'admin', (c) => c.call('getReceiver', { receiver_id: target.receiver.id })],
  ['GetDelivery', 'admin', (c) => c.call('getDelivery', { delivery_id: 'dlv_doesNotExist' })],
  [
    'ListActivity',
    'admin',
    (c) =>
      c.call('listActivity', {
        brand_id: brand,
        page_size: 0,
        page_token: '',
        actor: '',
        action: '',
        subject_id: '',
        since: '',
        until: '',
      }),
  ],
  [
    'RotateSecret',
    'admin',
    (c) => c.call('rotateSecret', { receiver_id: 'rcv_doesNotExist', actor_email: '' }),
  ],
  [
    'SwitchSecret',
    'admin',
    (c) => c.call('switchSecret', { receiver_id: 'rcv_doesNotExist', at: '', actor_email: '' }),
  ],
  [
    'CancelRotation',
    'admin',
    (c) => c.call('cancelRotation', { receiver_id: 'rcv_doesNotExist', actor_email: '' }),
  ],
  ['RetryDelivery', 'admin', (c) => c.call('retryDelivery', { delivery_id: 'dlv_doesNotExist' })],
  [
    'PreviewRecovery',
    'admin',
    (c) =>
      c.call('previewRecovery', {
        receiver_id: target.receiver.id,
        since: new Date(Date.now() - 3600_000).toISOString(),
      }),
  ],
  [
    'RecoverDeliveries',
    'admin',
    (c) =>
      c.call('recoverDeliveries', {
        receiver_id: 'rcv_doesNotExist',
        since: new Date(Date.now() - 3600_000).toISOString(),
        request_id: randomUUID(),
        actor_email: '',
      }),
  ],
  [
    'GetReceiverHealth',
    'admin',
    (c) => c.call('getReceiverHealth', { receiver_id: target.receiver.id }),
  ],
  [
    'ClaimReceiverNotices',
    'console',
    (c) => c.call('claimReceiverNotices', { limit: 1, lease_ms: 0 }),
  ],
  ['AckReceiverNotice', 'console', (c) => c.call('ackReceiverNotice', { id: 'rcn_doesNotExist' })],
];

const connect = (token: string): WebhooksClient => createWebhooksClient(h.webhooks.address, token);

runCallerAuthTests('WebhooksService/', connect, RPCS);

describe('refused calls', () => {
  it('change nothing', async () => {
    // the TestReceiver call above queued a delivery; let it land first, or its outcome
    // (last_status, last_delivery_at) would change the receiver between the two reads
    await target.server.waitFor((r) => r.length >= 1, 30_000);
    await waitFor(async () => {
      const { receivers } = await h.client.call('listReceivers', { brand_id: brand });
      return receivers.find((r) => r.id === target.receiver.id)?.last_delivery_at;
    });
    const before = await h.client.call('listReceivers', { brand_id: brand });
    await withCallerToken(connect, '', (c) =>
      callOutcome(c.call('removeReceiver', { receiver_id: target.receiver.id })),
    );
    await withCallerToken(connect, TEST_INTERNAL_TOKEN, (c) =>
      callOutcome(c.call('removeReceiver', { receiver_id: target.receiver.id })),
    );
    expect(await h.client.call('listReceivers', { brand_id: brand })).toEqual(before);
  });
});

describe('grpc.health.v1', () => {
  it('answers without a credential, so probes work', async () => {
    await expect(checkGrpcHealth(h.webhooks.address)).resolves.toBe('SERVING');
  });
});

describe('the log', () => {
  it('never contains a signing secret or the encryption key', async () => {
    // let the queued test delivery be attempted (and logged) first
    await target.server.waitFor((r) => r.length >= 1, 30_000);
    const log = h.webhooks.logs().join('\n');
    expect(secrets.length).toBeGreaterThanOrEqual(2);
    for (const secret of secrets) expect(log).not.toContain(secret);
    expect(log).not.toMatch(/whsec_/);
    expect(log).not.toContain(TEST_WEBHOOK_SECRET_KEY);
    expect(log).toMatch(/"msg":"listening"/);
  });
});

describe('/metrics', () => {
  it('counts WebhooksService calls by method and outcome on the operations listener', async () => {
    const line = h.webhooks.logs().find((l) => l.includes('"msg":"listening"'))!;
    const { ops_port: opsPort } = JSON.parse(line) as { ops_port: number };
    await h.client.call('listReceivers', { brand_id: brand });
    const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
    expect(text).toMatch(/^grpc_server_handled_total\{method="ListReceivers",code="ok"\} [1-9]/m);
    expect(text).toMatch(
      /^grpc_server_handled_total\{method="AddReceiver",code="unauthenticated"\}/m,
    );
  });
});
