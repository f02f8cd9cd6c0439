// The console acts for a brand member on receivers and deliveries. The webhooks service verifies
// the member assertion itself (records' Ed25519 signature, expiry), keeps brands apart (another
// brand's receivers and deliveries are not_found, exactly like missing ones), lets only owners
// change anything, and logs who did what.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { MEMBER_ASSERTION_METADATA, type MemberClaims } from '@brand/shared/console';
import {
  DeliveryStatus,
  ListDeliveriesRequest,
  ListEventOutcomesRequest,
} from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import {
  createWebhooksClient,
  randomHex,
  signTestAssertion,
  startRegisteredReceiver,
  TEST_CONSOLE_TOKEN,
  waitFor,
  type WebhooksClient,
} from '@brand/testkit';
import { newBrandId, startHarness, type Harness, type RegisteredReceiver } from './harness';

let h: Harness;
const clients: WebhooksClient[] = [];
const servers: RegisteredReceiver[] = [];

beforeAll(async () => {
  h = await startHarness({ label: 'console' });
});
afterAll(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((r) => r.server.close()));
  await h?.close();
});

type Role = MemberClaims['role'];

function member(brandId: string, role: Role) {
  const claims = {
    brand_id: brandId,
    member_id: `mem_${randomHex(8)}`,
    email: `${role}-${randomHex(3)}@brand.test`,
    role,
    tier: 'plus' as const,
  };
  return { claims, client: consoleClient(signTestAssertion(claims)) };
}

function consoleClient(assertion: string): WebhooksClient {
  const metadata: Record<string, string> =
    assertion === '' ? {} : { [MEMBER_ASSERTION_METADATA]: assertion };
  const c = createWebhooksClient(h.webhooks.address, TEST_CONSOLE_TOKEN, metadata);
  clients.push(c);
  return c;
}

const PAID = EVENT_TYPES.toProto('payout.paid');
const hourAgo = (): string => new Date(Date.now() - 3600_000).toISOString();
const SETTLED = EVENT_TYPES.toProto('campaign.settled');

/** A brand with a receiver its owner added through the console, and one test delivered. */
async function brandWithReceiver() {
  const brandId = newBrandId();
  const owner = member(brandId, 'owner');
  const registered = await startRegisteredReceiver({
    client: owner.client,
    ca: h.ca,
    brandId,
    events: ['payout.paid', 'campaign.settled'],
    actorEmail: 'ignored@x.test',
  });
  servers.push(registered);
  const { delivery } = await owner.client.call('testReceiver', {
    receiver_id: registered.receiver.id,
    event_type: SETTLED,
    with_new_secret: false,
  });
  const done = await waitFor(
    async () => {
      const got = await owner.client.call('getDelivery', { delivery_id: delivery!.id });
      return got.delivery?.completed_at ? got.delivery : undefined;
    },
    { timeoutMs: 30_000 },
  );
  return { brandId, owner, registered, receiverId: registered.receiver.id, delivery: done };
}

describe('an owner through the console', () => {
  it('adds a receiver as themselves, tests it and watches the delivery succeed', async () => {
    const b = await brandWithReceiver();
    expect(b.registered.receiver.created_by).toBe(b.owner.claims.email);
    expect(b.delivery).toMatchObject({
      test: true,
      status: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
      last_status: 200,
    });
    expect(b.delivery.attempts[0]).toMatchObject({ number: 1, status_code: 200 });
    expect(b.registered.server.received.at(-1)?.event?.type).toBe('campaign.settled');
  });

  it('edits, disables, enables, resends and removes; the activity names the member', async () => {
    const b = await brandWithReceiver();
    const c = b.owner.client;
    await c.call('updateReceiver', { receiver_id: b.receiverId, label: 'Renamed', events: [] });
    await c.call('updateReceiver', { receiver_id: b.receiverId, enabled: false, events: [] });
    await c.call('updateReceiver', { receiver_id: b.receiverId, enabled: true, events: [] });
    const got = await c.call('getReceiver', { receiver_id: b.receiverId });
    expect(got.receiver).toMatchObject({ label: 'Renamed', enabled: true });

    const resent = await c.call('resendDelivery', { delivery_id: b.delivery.id });
    expect(resent.delivery?.status).toBe(DeliveryStatus.DELIVERY_STATUS_PENDING);
    await waitFor(
      async () => {
        const d = await c.call('getDelivery', { delivery_id: b.delivery.id });
        return (
          d.delivery?.status === DeliveryStatus.DELIVERY_STATUS_SUCCEEDED &&
          d.delivery.attempts.length === 2
        );
      },
      { timeoutMs: 30_000 },
    );
    const { deliveries } = await c.call(
      'listDeliveries',
      ListDeliveriesRequest.fromPartial({
        receiver_id: b.receiverId,
        brand_id: '',
        limit: 0,
      }),
    );
    expect(deliveries.map((d) => d.id)).toEqual([b.delivery.id]);

    await c.call('removeReceiver', { receiver_id: b.receiverId });
    await expect(c.call('getReceiver', { receiver_id: b.receiverId })).rejects.toMatchObject({
      code: 'not_found',
    });

    const { entries } = await c.call('listActivity', {
      brand_id: b.brandId,
      page_size: 0,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    });
    expect(entries.map((e) => e.action)).toEqual([
      'receiver.removed',
      'delivery.resent',
      'receiver.changed',
      'receiver.changed',
      'receiver.changed',
      'receiver.tested',
      'receiver.added',
    ]);
    expect(new Set(entries.map((e) => e.actor_email))).toEqual(new Set([b.owner.claims.email]));
    expect(new Set(entries.map((e) => e.actor_member_id))).toEqual(
      new Set([b.owner.claims.member_id]),
    );
    expect(entries[2]!.summary).toContain('enabled');
    expect(JSON.stringify(entries)).not.toContain(b.registered.secret);
  });
});

describe('an owner on day 2 (issue 24)', () => {
  it('rotates, tests the new secret, switches, recovers and reads health; the activity names them', async () => {
    const b = await brandWithReceiver();
    const c = b.owner.client;
    const rid = { receiver_id: b.receiverId };
    // a member is recorded as themselves, whatever actor_email says
    const rotated = await c.call('rotateSecret', {
      ...rid,
      actor_email: 'someone-else@brand.test',
    });
    expect(rotated.receiver?.rotation?.created_by).toBe(b.owner.claims.email);
    b.registered.secrets.push(rotated.new_secret);
    const { delivery } = await c.call('testReceiver', {
      ...rid,
      event_type: PAID,
      with_new_secret: true,
    });
    await waitFor(
      async () =>
        (await c.call('getReceiver', rid)).receiver?.rotation?.test_status ===
        DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
      { timeoutMs: 30_000 },
    );
    expect(delivery?.signed_with_new_secret).toBe(true);
    await c.call('switchSecret', { ...rid, at: '', actor_email: '' });
    await expect(
      c.call('recoverDeliveries', {
        ...rid,
        since: hourAgo(),
        request_id: randomUUID(),
        actor_email: '',
      }),
    ).resolves.toMatchObject({ requeued: 0, replayed: false });
    // nothing waits: an owner may ask, nothing changes, and nothing is logged
    await expect(c.call('retryWaitingDeliveries', { ...rid, actor_email: '' })).resolves.toEqual({
      made_due: 0,
      remaining: 0,
    });
    await expect(c.call('getReceiverHealth', rid)).resolves.toMatchObject({
      windows: [{ window: '1h' }, { window: '24h' }, { window: '7d' }],
    });
    const { entries } = await c.call('listActivity', {
      brand_id: b.brandId,
      page_size: 4,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    });
    expect(entries.map((e) => [e.action, e.actor_email])).toEqual([
      ['deliveries.recovered', b.owner.claims.email],
      ['receiver.secret_switched', b.owner.claims.email],
      ['receiver.tested', b.owner.claims.email],
      ['receiver.secret_rotation_started', b.owner.claims.email],
    ]);
    expect(JSON.stringify(entries)).not.toContain(rotated.new_secret);
  });
});

describe('admins and members', () => {
  it.each<Role>(['admin', 'member'])('a %s reads everything and changes nothing', async (role) => {
    const b = await brandWithReceiver();
    const { client } = member(b.brandId, role);
    const rid = { receiver_id: b.receiverId };
    await expect(client.call('listReceivers', { brand_id: b.brandId })).resolves.toMatchObject({
      receivers: [{ id: b.receiverId }],
    });
    await expect(client.call('getReceiver', rid)).resolves.toBeDefined();
    await expect(
      client.call(
        'listDeliveries',
        ListDeliveriesRequest.fromPartial({ ...rid, brand_id: '', limit: 10 }),
      ),
    ).resolves.toMatchObject({ deliveries: [{ id: b.delivery.id }] });
    await expect(client.call('getDelivery', { delivery_id: b.delivery.id })).resolves.toBeDefined();
    await expect(
      client.call(
        'listEventOutcomes',
        ListEventOutcomesRequest.fromPartial({ brand_id: b.brandId, limit: 10 }),
      ),
    ).resolves.toBeDefined();
    await expect(
      client.call('listActivity', {
        brand_id: b.brandId,
        page_size: 0,
        page_token: '',
        actor: '',
        action: '',
        subject_id: '',
        since: '',
        until: '',
      }),
    ).resolves.toBeDefined();
    await expect(client.call('getReceiverHealth', rid)).resolves.toMatchObject({
      windows: [{ window: '1h' }, { window: '24h' }, { window: '7d' }],
    });

    const refused = [
      client.call('addReceiver', {
        brand_id: b.brandId,
        url: `${b.registered.server.url}/x`,
        label: 'x',
        events: [PAID],
        actor_email: '',
      }),
      client.call('updateReceiver', { ...rid, label: 'mine', events: [] }),
      client.call('updateReceiver', { ...rid, enabled: false, events: [] }),
      client.call('removeReceiver', rid),
      client.call('testReceiver', { ...rid, event_type: PAID, with_new_secret: false }),
      client.call('resendDelivery', { delivery_id: b.delivery.id }),
      client.call('rotateSecret', { ...rid, actor_email: '' }),
      client.call('switchSecret', { ...rid, at: '', actor_email: '' }),
      client.call('cancelRotation', { ...rid, actor_email: '' }),
      client.call('testReceiver', { ...rid, event_type: PAID, with_new_secret: true }),
      client.call('retryDelivery', { delivery_id: b.delivery.id }),
      client.call('retryWaitingDeliveries', { ...rid, actor_email: '' }),
      client.call('previewRecovery', { ...rid, since: hourAgo() }),
      client.call('recoverDeliveries', {
        ...rid,
        since: hourAgo(),
        request_id: randomUUID(),
        actor_email: '',
      }),
    ];
    for (const call of refused) {
      await expect(call).rejects.toMatchObject({ code: 'insufficient_permission' });
    }
    const after = await b.owner.client.call('getReceiver', rid);
    expect(after.receiver).toMatchObject({ label: b.registered.receiver.label, enabled: true });
    const { receivers } = await b.owner.client.call('listReceivers', { brand_id: b.brandId });
    expect(receivers).toHaveLength(1);
  });
});

describe("another brand's owner", () => {
  it('gets not_found for every id of this brand, worded as for a missing one', async () => {
    const b = await brandWithReceiver();
    const other = member(newBrandId(), 'owner').client;
    const rid = { receiver_id: b.receiverId };
    const missingReceiver = await other
      .call('getReceiver', { receiver_id: 'rcv_doesNotExist0000' })
      .catch((e: Error) => e.message.replace('rcv_doesNotExist0000', b.receiverId));
    const err = await other.call('getReceiver', rid).catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'not_found', message: missingReceiver });

    const calls = [
      other.call('listReceivers', { brand_id: b.brandId }),
      other.call('updateReceiver', { ...rid, label: 'stolen', events: [] }),
      other.call('removeReceiver', rid),
      other.call('testReceiver', { ...rid, event_type: PAID, with_new_secret: false }),
      other.call(
        'listDeliveries',
        ListDeliveriesRequest.fromPartial({ ...rid, brand_id: '', limit: 10 }),
      ),
      other.call(
        'listDeliveries',
        ListDeliveriesRequest.fromPartial({ receiver_id: '', brand_id: b.brandId, limit: 10 }),
      ),
      other.call('getDelivery', { delivery_id: b.delivery.id }),
      other.call(
        'listEventOutcomes',
        ListEventOutcomesRequest.fromPartial({ brand_id: b.brandId, limit: 10 }),
      ),
      other.call('resendDelivery', { delivery_id: b.delivery.id }),
      other.call('listActivity', {
        brand_id: b.brandId,
        page_size: 0,
        page_token: '',
        actor: '',
        action: '',
        subject_id: '',
        since: '',
        until: '',
      }),
      other.call('rotateSecret', { ...rid, actor_email: '' }),
      other.call('switchSecret', { ...rid, at: '', actor_email: '' }),
      other.call('cancelRotation', { ...rid, actor_email: '' }),
      other.call('testReceiver', { ...rid, event_type: PAID, with_new_secret: true }),
      other.call('retryDelivery', { delivery_id: b.delivery.id }),
      other.call('retryWaitingDeliveries', { ...rid, actor_email: '' }),
      other.call('previewRecovery', { ...rid, since: hourAgo() }),
      other.call('recoverDeliveries', {
        ...rid,
        since: hourAgo(),
        request_id: randomUUID(),
        actor_email: '',
      }),
      other.call('getReceiverHealth', rid),
      other.call('addReceiver', {
        brand_id: b.brandId,
        url: `${b.registered.server.url}/x`,
        label: 'x',
        events: [PAID],
        actor_email: '',
      }),
    ];
    for (const call of calls) await expect(call).rejects.toMatchObject({ code: 'not_found' });
    const { receivers } = await b.owner.client.call('listReceivers', { brand_id: b.brandId });
    expect(receivers.map((r) => [r.id, r.label])).toEqual([
      [b.receiverId, b.registered.receiver.label],
    ]);
  });
});

describe('assertions the webhooks service refuses', () => {
  it('missing, forged, expired or tampered: unauthenticated', async () => {
    const brandId = newBrandId();
    const claims = {
      brand_id: brandId,
      member_id: `mem_${randomHex(8)}`,
      email: 'owner@x.test',
      role: 'owner' as const,
      tier: 'plus' as const,
    };
    const otherKey = generateKeyPairSync('ed25519')
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const good = signTestAssertion(claims);
    const [head, body, sig] = good.split('.');
    const promoted = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(body!, 'base64url').toString()),
        brand_id: newBrandId(),
      }),
    ).toString('base64url');
    for (const assertion of [
      '',
      'garbage',
      signTestAssertion(claims, { privateKeyPem: otherKey }),
      signTestAssertion(claims, { nowMs: Date.now() - 70_000 }),
      `${head}.${promoted}.${sig}`,
    ]) {
      await expect(
        consoleClient(assertion).call('listReceivers', { brand_id: brandId }),
      ).rejects.toMatchObject({ code: 'unauthenticated' });
    }
    await expect(consoleClient(good).call('listReceivers', { brand_id: brandId })).resolves.toEqual(
      { receivers: [] },
    );
  });
});
