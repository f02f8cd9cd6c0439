// A settings save changed by someone else between the console's read and its write (a review of
// lost updates, 2026-12-01). The console reads a receiver, a key, the provisioning settings or an
// audit stream, decides what the person changed (forms/shownFields.ts), and writes in a second
// call: what another owner, brandctl or the API committed between the two was replaced unseen (a
// receiver's events replaced whole, a removed network put back, "revoke the keys" turned off
// again, a rename undone). The write now names what it was decided on, the service refuses it when
// the row changed since, and the console reads again and decides once more
// (forms/ontoWhatWasRead.ts): a change of another field is kept beside the person's, one of the
// same field is the usual 409 (edit_conflict). Each race holds the row's lock, queues the other
// change behind it, then the person's save (read before the lock is let go, its write queued
// second), and lets them go in that order. And a stream's token typed for the host the page showed
// is refused (409, naming the URL) once another owner has moved the stream, as a client secret on
// the single sign-on form is: it was stored for the new host.
import { Role } from '@brand/proto/access/v1';
import { ProvisioningServiceClient } from '@brand/proto/access/v1/provisioning';
import { AuditStreamServiceClient } from '@brand/proto/webhooks/v1/audit';
import { EVENT_TYPES } from '@brand/shared/enums';
import { connectClient, createCaller } from '@brand/shared/grpc';
import {
  LOCK_QUEUE_SERVICE_ENV,
  outcomeOf,
  queueBehindRowLock,
  randomHex,
  TEST_ADMIN_TOKEN,
} from '@brand/testkit';
import { formAsPosted, type Answer, type ConsoleHttp } from '../browserlessClient';
import {
  brandWithOwner,
  LOCK_QUEUE_CONSOLE_ENV,
  signInHttp,
  startReceiverStack,
  type ReceiverStack,
} from '../consoleActors';

let rs: ReceiverStack;
let provisioningClient: ProvisioningServiceClient;
let streamsClient: AuditStreamServiceClient;
let provisioning: ReturnType<typeof createCaller<ProvisioningServiceClient>>;
let streams: ReturnType<typeof createCaller<AuditStreamServiceClient>>;

beforeAll(async () => {
  rs = await startReceiverStack(LOCK_QUEUE_CONSOLE_ENV, {
    recordsEnv: LOCK_QUEUE_SERVICE_ENV,
    webhooksEnv: LOCK_QUEUE_SERVICE_ENV,
  });
  provisioningClient = connectClient(ProvisioningServiceClient, rs.cs.stack.records.address);
  // the first of two queued calls waits on the lock until the second has reached it
  provisioning = createCaller(provisioningClient, { deadlineMs: 30_000, token: TEST_ADMIN_TOKEN });
  streamsClient = connectClient(AuditStreamServiceClient, rs.cs.stack.webhooks!.address);
  streams = createCaller(streamsClient, { deadlineMs: 30_000, token: TEST_ADMIN_TOKEN });
}, 120_000);
afterAll(async () => {
  provisioningClient?.close();
  streamsClient?.close();
  await rs?.close();
});

async function owner() {
  const { brand, owner: o } = await brandWithOwner(rs.cs);
  await rs.cs.stack.admin.addMember({
    brandId: brand.id,
    email: `second-${randomHex(4)}@brand.test`,
    role: Role.ROLE_OWNER,
  });
  return { brand, owner: o, http: await signInHttp(rs.cs, o.email) };
}

/** The other change, then the person's save, queued behind the row's lock in that order. */
const otherThenSave = (
  lock: string,
  id: string,
  other: () => Promise<unknown>,
  save: () => Promise<Answer>,
) =>
  queueBehindRowLock(
    rs.cs.stack.db.pool,
    { sql: `select 1 from ${lock} where id = $1 for update`, params: [id] },
    [outcomeOf(other), save] as const,
  );

const openForm = async (http: ConsoleHttp, page: string, action: string) => {
  const opened = await http.get(page);
  expect(opened.status).toBe(200);
  return formAsPosted(opened.body, action);
};

describe("a receiver's settings", () => {
  async function receiverPage() {
    const t = await owner();
    const r = await rs.receiverFor(t.brand.id, { label: `Orders ${randomHex(2)}` });
    const base = `/brands/${t.brand.id}/receivers/${r.receiver.id}`;
    const form = await openForm(t.http, `${base}/settings`, `${base}/edit`);
    return { ...t, id: r.receiver.id, action: `${base}/edit`, form };
  }
  const stored = async (id: string) => {
    const { receiver } = await rs.admin.call('getReceiver', { receiver_id: id });
    return {
      label: receiver!.label,
      events: receiver!.events.map((e) => EVENT_TYPES.fromProto(e)).sort(),
    };
  };
  const setEvents = (id: string, events: string[]) =>
    rs.admin.call('updateReceiver', {
      receiver_id: id,
      events: events.map((e) => EVENT_TYPES.toProto(e as 'payout.paid')),
    });

  it('keeps a change of the events made meanwhile beside a rename', async () => {
    const t = await receiverPage();
    const theirs = ['payout.paid', 'submission.approved', 'submission.rejected'];
    const [other, saved] = await otherThenSave(
      'webhooks.receivers',
      t.id,
      () => setEvents(t.id, theirs),
      () => t.http.post(t.action, { ...t.form, label: 'Orders (EU)' }),
    );
    expect(other).toEqual({ ok: true });
    expect(saved.status).toBe(303);
    expect(await stored(t.id)).toEqual({ label: 'Orders (EU)', events: theirs });
  });

  it('refuses a selection of events over one made meanwhile (409), keeping theirs', async () => {
    const t = await receiverPage();
    const theirs = ['payout.paid', 'submission.approved', 'submission.rejected'];
    const [, saved] = await otherThenSave(
      'webhooks.receivers',
      t.id,
      () => setEvents(t.id, theirs),
      () => t.http.post(t.action, { ...t.form, events: ['payout.paid'] }),
    );
    expect(saved.status).toBe(409);
    expect(saved.headers.get('x-console-error')).toBe('edit_conflict');
    expect(saved.body).toContain('someone else changed the');
    expect((await stored(t.id)).events).toEqual(theirs);
  });
});

describe("a key's allowed networks", () => {
  const KEPT = '203.0.113.0/24';
  const REMOVED = '198.51.100.0/24';

  it('refuses a list over a removal made meanwhile (409), the network not put back', async () => {
    const t = await owner();
    const { key } = await rs.cs.stack.admin.createKey({
      brandId: t.brand.id,
      actorEmail: t.owner.email,
      name: `Sync ${randomHex(2)}`,
      allowedNetworks: [KEPT, REMOVED],
    });
    const action = `/brands/${t.brand.id}/keys/${key.id}/networks`;
    const form = await openForm(t.http, action, action);
    const [other, saved] = await otherThenSave(
      'records.api_keys',
      key.id,
      () =>
        rs.cs.stack.admin.access('setKeyNetworks', {
          key_id: key.id,
          allowed_networks: [KEPT],
          actor_email: t.owner.email,
        }),
      () => t.http.post(action, { ...form, allowed_networks: `${KEPT}\n${REMOVED}\n192.0.2.0/24` }),
    );
    expect(other).toEqual({ ok: true });
    expect(saved.status).toBe(409);
    expect(saved.headers.get('x-console-error')).toBe('edit_conflict');
    const { rows } = await rs.cs.stack.db.pool.query<{ allowed_networks: string[] }>(
      'select allowed_networks from records.api_keys where id = $1',
      [key.id],
    );
    expect(rows[0]!.allowed_networks).toEqual([KEPT]);
  });
});

describe('the provisioning settings', () => {
  it("keeps 'revoke the keys' turned on meanwhile beside a new groups claim", async () => {
    const t = await owner();
    const page = `/brands/${t.brand.id}/provisioning`;
    const form = await openForm(t.http, page, `${page}/settings`);
    const [other, saved] = await otherThenSave(
      'records.brands',
      t.brand.id,
      () =>
        provisioning('setProvisioningSettings', {
          brand_id: t.brand.id,
          settings: {
            jit_enabled: false,
            jit_groups_claim: 'groups',
            revoke_keys_on_deprovision: true,
          },
        }),
      () => t.http.post(`${page}/settings`, { ...form, jit_groups_claim: 'roles' }),
    );
    expect(other).toEqual({ ok: true });
    expect(saved.status).toBe(303);
    const { settings } = await provisioning('getProvisioning', { brand_id: t.brand.id });
    expect(settings).toEqual({
      jit_enabled: false,
      jit_groups_claim: 'roles',
      revoke_keys_on_deprovision: true,
    });
  });
});

describe("an audit stream's settings", () => {
  it('refuses a rename over one made meanwhile (409), keeping theirs', async () => {
    const t = await owner();
    const r = await rs.receiverFor(t.brand.id);
    const { stream } = await streams('addAuditStream', {
      brand_id: t.brand.id,
      kind: 'https',
      label: 'SIEM',
      url: r.receiver.url,
      token: '',
      datadog_site: '',
      splunk_index: '',
      actor_email: t.owner.email,
    });
    const page = `/brands/${t.brand.id}/audit-streams/${stream!.id}`;
    const form = await openForm(t.http, page, page);
    const [other, saved] = await otherThenSave(
      'webhooks.receivers',
      stream!.id,
      () =>
        streams('updateAuditStream', {
          stream_id: stream!.id,
          label: 'SIEM (ops)',
          actor_email: '',
        }),
      () => t.http.post(page, { ...form, label: 'SIEM (security)' }),
    );
    expect(other).toEqual({ ok: true });
    expect(saved.status).toBe(409);
    expect(saved.headers.get('x-console-error')).toBe('edit_conflict');
    const after = await streams('getAuditStream', { stream_id: stream!.id, deliveries: 0 });
    expect(after.stream!.label).toBe('SIEM (ops)');
  });
  it('refuses a token typed for the host the page showed once another owner moved the stream', async () => {
    const t = await owner();
    const r = await rs.receiverFor(t.brand.id);
    const oldHost = r.receiver.url;
    const { stream } = await streams('addAuditStream', {
      brand_id: t.brand.id,
      kind: 'splunk_hec',
      label: 'Splunk',
      url: oldHost,
      token: '5c1e7a52-3c1b-4a7e-9d2f-0b6f1c2d3e4f',
      datadog_site: '',
      splunk_index: '',
      actor_email: t.owner.email,
    });
    const page = `/brands/${t.brand.id}/audit-streams/${stream!.id}`;
    const form = await openForm(t.http, page, page);
    const newHost = oldHost.replace('127.0.0.1', 'localhost');
    await streams('updateAuditStream', {
      stream_id: stream!.id,
      url: newHost,
      token: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      actor_email: '',
    });
    const sealed = async () =>
      (
        await rs.cs.stack.db.pool.query<{ url: string; secret_ciphertext: Buffer }>(
          'select url, secret_ciphertext from webhooks.receivers where id = $1',
          [stream!.id],
        )
      ).rows[0]!;
    const moved = await sealed();
    const saved = await t.http.post(page, {
      ...form,
      token: 'ffffffff-0000-4000-8000-000000000000',
    });
    expect(saved.status).toBe(409);
    expect(saved.headers.get('x-console-error')).toBe('edit_conflict');
    expect(saved.body).toContain('URL');
    expect(await sealed()).toEqual(moved);
  });
});
