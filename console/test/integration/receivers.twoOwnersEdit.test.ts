// Two owners editing one receiver from pages opened at the same time (a hostile review of lost
// updates, 2026-12-01). The settings form posts its URL, label and events whatever the person
// touched, and the console sent them all: the second save put back every field the first had
// changed, silently. The form now carries what it showed, and a save sends only what the person
// changed, so changes to different fields both stand; a field changed by both is refused to the
// second (409, naming it and its value now) rather than silently overwritten. An audit stream's
// settings form had the same fault (its name and URL posted back) and has the same rule.
import { Role } from '@brand/proto/access/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { randomHex, type WebhooksClient } from '@brand/testkit';
import { formAsPosted, type ConsoleHttp } from '../browserlessClient';
import {
  brandWithOwner,
  signInHttp,
  startReceiverStack,
  type ReceiverStack,
} from '../consoleActors';

let rs: ReceiverStack;
let admin: WebhooksClient;

beforeAll(async () => {
  rs = await startReceiverStack();
  admin = rs.admin;
}, 120_000);
afterAll(() => rs?.close());

async function twoOwnersAndReceiver() {
  const { brand, owner } = await brandWithOwner(rs.cs);
  const second = await rs.cs.stack.admin.addMember({
    brandId: brand.id,
    email: `second-${randomHex(4)}@brand.test`,
    role: Role.ROLE_OWNER,
  });
  const r = await rs.receiverFor(brand.id, { label: `Orders ${randomHex(2)}` });
  const settings = `/brands/${brand.id}/receivers/${r.receiver.id}/settings`;
  const action = `/brands/${brand.id}/receivers/${r.receiver.id}/edit`;
  const open = async (http: ConsoleHttp) => {
    const page = await http.get(settings);
    expect(page.status).toBe(200);
    return formAsPosted(page.body, action);
  };
  const a = await signInHttp(rs.cs, owner.email);
  const b = await signInHttp(rs.cs, second.email);
  return { r, action, a, b, formA: await open(a), formB: await open(b) };
}

const stored = async (id: string) => {
  const { receiver } = await admin.call('getReceiver', { receiver_id: id });
  return {
    label: receiver!.label,
    events: receiver!.events.map((e) => EVENT_TYPES.fromProto(e)).sort(),
  };
};

describe('two owners saving one receiver from pages opened together', () => {
  it("keeps both changes when they changed different fields: the second save does not undo the first's", async () => {
    const t = await twoOwnersAndReceiver();
    const renamed = await t.a.post(t.action, { ...t.formA, label: 'Order system (EU)' });
    expect(renamed.status).toBe(303);
    const events = ['payout.paid', 'submission.approved', 'submission.rejected'];
    const selected = await t.b.post(t.action, { ...t.formB, events });
    expect(selected.status).toBe(303);
    expect(await stored(t.r.receiver.id)).toEqual({ label: 'Order system (EU)', events });
  });

  it('refuses the second change of the same field, naming it, and keeps the first', async () => {
    const t = await twoOwnersAndReceiver();
    expect((await t.a.post(t.action, { ...t.formA, label: 'Orders A' })).status).toBe(303);
    const second = await t.b.post(t.action, { ...t.formB, label: 'Orders B' });
    expect(second.status).toBe(409);
    expect(second.body).toContain('someone else changed the');
    expect(second.body).toContain('Orders A');
    expect((await stored(t.r.receiver.id)).label).toBe('Orders A');
  });
});

describe("two owners saving one audit stream's settings from pages opened together", () => {
  it('keeps a rename and a new URL made from two pages', async () => {
    const t = await twoOwnersAndReceiver();
    const brandId = t.action.split('/')[2]!;
    const list = `/brands/${brandId}/audit-streams`;
    const listPage = await t.a.get(list);
    const added = await t.a.post(list, {
      _csrf: formAsPosted(listPage.body, list)._csrf as string,
      kind: 'https',
      label: 'SIEM',
      url: t.r.receiver.url,
    });
    expect(added.status).toBe(303);
    const id = /aus_[A-Za-z0-9]+/.exec((await t.a.get(list)).body)![0];
    const page = `${list}/${id}`;
    const formA = formAsPosted((await t.a.get(page)).body, page);
    const formB = formAsPosted((await t.b.get(page)).body, page);
    expect((await t.a.post(page, { ...formA, label: 'SIEM (EU)' })).status).toBe(303);
    const moved = `${t.r.receiver.url}?to=b`;
    expect((await t.b.post(page, { ...formB, url: moved })).status).toBe(303);
    const row = await rs.cs.stack.db.pool.query<{ label: string; url: string }>(
      'select label, url from receivers where id = $1',
      [id],
    );
    expect(row.rows[0]).toEqual({ label: 'SIEM (EU)', url: moved });
  });
});
