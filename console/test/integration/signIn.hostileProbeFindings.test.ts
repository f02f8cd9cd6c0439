// What a hostile probe of the console found, each closed and checked through the console's HTTP
// surface (real records, webhooks, plans, gateway, SMTP sink and console):
// 2. anyone could lock a member out by spending the address's sign-in budget;
// 3. older sign-in links survived a newer link and "sign out everywhere";
// 4. a removed member's session lived on (and revived when they were invited back), and a role
//    change left it too;
// 5. the receiver guide's example put what an owner typed into JavaScript source unescaped.
// And a request accepted while mail is failing is mailed once mail works (nothing is lost).
// Finding 1 (timing) has its own file: signIn.timingHidesMembership.test.ts.
import { EVENT_TYPES } from '@brand/shared/enums';
import { Receiver } from '@brand/proto/webhooks/v1';
import { randomHex, waitFor } from '@brand/testkit';
import { renderToString } from 'preact-render-to-string';
import { ReceiverGuide } from '../../src/pages/receivers/guide';
import { ConsoleHttp, csrfOf } from '../browserlessClient';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import {
  deliver,
  exampleCodeOf,
  runExample,
  signedDelivery,
  startTlsFront,
  type RunningExample,
} from '../guideExample';

/** Mails to one address are spaced this far apart (one minute in production). */
const SPACING_MS = 2_000;

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({
    recordsEnv: {
      SIGN_IN_MAIL_SPACING_MS: String(SPACING_MS),
      SIGN_IN_MAIL_SPACING_MAX_MS: String(SPACING_MS * 4),
      SIGN_IN_MAIL_LEASE_MS: '1000',
    },
    // The console believes X-Forwarded-For, so one test can be several clients.
    consoleEnv: { TRUST_PROXY: 'true' },
  });
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

let clients = 0;
/** A client of its own, at an address no other client of this file uses. */
const newClient = (): ConsoleHttp => new ConsoleHttp(cs.url, `198.51.100.${++clients}`);
const pathOf = (link: string): string => new URL(link).pathname;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function brandWithOwner() {
  return cs.stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
}

/** Waits for the `n`th mail (from 0) to `email` and returns its link. */
async function nthLink(email: string, n: number): Promise<string> {
  return waitFor(() => cs.linksTo(email)[n], {
    timeoutMs: 15_000,
    what: `sign-in mail ${n + 1} to ${email}`,
  });
}

/** Asks for a link from a new client, waits for the next mail and spends its link. */
async function signIn(email: string): Promise<ConsoleHttp> {
  const http = newClient();
  const mailed = cs.linksTo(email).length;
  expect((await http.post('/sign-in', { email })).status).toBe(200);
  const redeemed = await http.post(pathOf(await nthLink(email, mailed)), {});
  expect(redeemed.status).toBe(303);
  return http;
}

describe('sign-in abuse limits (finding 2)', () => {
  it('an abusive client cannot lock a member out, and the limits still hold', async () => {
    const { brand, owner } = await brandWithOwner();
    const abuser = newClient();
    for (let i = 0; i < 5; i++) {
      expect((await abuser.post('/sign-in', { email: owner.email })).status).toBe(200);
    }
    await nthLink(owner.email, 0);
    const refused = await abuser.post('/sign-in', { email: owner.email });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    // The member asks from their own client: answered, and mailed a link that works.
    const member = newClient();
    expect((await member.post('/sign-in', { email: owner.email })).status).toBe(200);
    const link = await nthLink(owner.email, 1);
    const signedIn = await member.post(pathOf(link), {});
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(`/brands/${brand.id}`);

    // Six requests accepted, two mails: one at once, the rest folded into one a spacing later.
    await sleep(SPACING_MS * 1.5);
    expect(cs.linksTo(owner.email)).toHaveLength(2);
  });
});

describe('sustained sign-in abuse (a hostile review of 2026-11-29)', () => {
  it('backs the mails off while their links go unused, so no link is ended within the spacing', async () => {
    // Asking for a member's link from ever new clients once the spacing passes used to mail the
    // member one a spacing without end, each ending the one before: a mail a minute, each link
    // working a minute. The spacing now doubles with every link that went unused (2, 4, 8 s
    // here), so the third link comes 6 s after the first, and lives on while the abuse goes on.
    const { brand, owner } = await brandWithOwner();
    let abusers = 0;
    const abuse = async () => {
      const r = await new ConsoleHttp(cs.url, `203.0.113.${++abusers}`).post('/sign-in', {
        email: owner.email,
      });
      expect(r.status).toBe(200);
      await sleep(250);
    };
    const started = Date.now();
    while (cs.linksTo(owner.email).length < 3) await abuse();
    expect(Date.now() - started).toBeGreaterThanOrEqual(SPACING_MS * 3 - 500);
    const third = cs.linksTo(owner.email)[2]!;
    const goOnUntil = Date.now() + SPACING_MS * 1.5;
    while (Date.now() < goOnUntil) await abuse();

    expect(cs.linksTo(owner.email)).toHaveLength(3);
    const opened = await newClient().post(pathOf(third), {});
    expect(opened.status).toBe(303);
    expect(opened.location).toBe(`/brands/${brand.id}`);
    // The member asking once more is mailed a link that works.
    await signIn(owner.email);
  });
});

describe('older sign-in links (finding 3)', () => {
  it('a new link ends the earlier unused ones, and signing out everywhere ends them too', async () => {
    const { owner } = await brandWithOwner();
    const asker = newClient();
    await asker.post('/sign-in', { email: owner.email });
    const first = await nthLink(owner.email, 0);
    await asker.post('/sign-in', { email: owner.email });
    const second = await nthLink(owner.email, 1);

    const stale = await newClient().post(pathOf(first), {});
    expect(stale.status).toBe(400);
    expect(stale.body).toContain('does not work');
    const session = newClient();
    expect((await session.post(pathOf(second), {})).status).toBe(303);

    await asker.post('/sign-in', { email: owner.email });
    const third = await nthLink(owner.email, 2);
    const page = await session.get('/brands');
    const out = await session.post('/sign-out-everywhere', { _csrf: csrfOf(page.body) });
    expect(out.status).toBe(303);
    const late = await newClient().post(pathOf(third), {});
    expect(late.status).toBe(400);
    expect(late.headers.get('set-cookie')).toBeNull();
  });
});

describe("a member's sessions (finding 4, and issue 59)", () => {
  it('lose the brand at the next request when the member is removed, and an invitation brings none back', async () => {
    const { brand, owner } = await brandWithOwner();
    const email = `member-${randomHex(4)}@brand.test`;
    await cs.stack.admin.addMember({ brandId: brand.id, email, role: 'member' });
    const ownerHttp = await signIn(owner.email);
    const membersPage = () => ownerHttp.get(`/brands/${brand.id}/members`);
    const memberId = (body: string): string => {
      const id = /\/members\/(mem_[A-Za-z0-9]+)\/remove/.exec(body.slice(body.indexOf(email)))?.[1];
      if (!id) throw new Error(`no member row for ${email}`);
      return id;
    };

    const member = await signIn(email);
    expect((await member.get(`/brands/${brand.id}/keys`)).status).toBe(200);
    let page = await membersPage();
    const id = memberId(page.body);
    const changed = await ownerHttp.post(`/brands/${brand.id}/members/${id}/role`, {
      role: 'admin',
      _csrf: csrfOf(page.body),
    });
    expect(changed.status).toBe(303);
    // The new role holds at the member's next request; their session (the address's) lives on.
    const asAdmin = await member.get(`/brands/${brand.id}/keys`);
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body).toContain('(admin)');

    page = await membersPage();
    const removed = await ownerHttp.post(`/brands/${brand.id}/members/${id}/remove`, {
      _csrf: csrfOf(page.body),
    });
    expect(removed.status).toBe(303);
    // The very next request for the brand is refused, and the brand is gone from their list.
    expect((await member.get(`/brands/${brand.id}/keys`)).status).toBe(404);
    expect((await member.get('/brands')).body).not.toContain(brand.id);

    page = await membersPage();
    const invited = await ownerHttp.post(`/brands/${brand.id}/members`, {
      email,
      role: 'member',
      _csrf: csrfOf(page.body),
    });
    expect(invited.status).toBe(303);
    // A pending invitation grants nothing.
    expect((await member.get(`/brands/${brand.id}/keys`)).status).toBe(404);
    // The owner who acted is still signed in.
    expect((await membersPage()).status).toBe(200);
  });
});

describe('an accepted request while mail fails', () => {
  it('is mailed once the mail server is back: nothing accepted is lost', async () => {
    const { owner } = await brandWithOwner();
    await cs.stopMailbox();
    try {
      expect((await newClient().post('/sign-in', { email: owner.email })).status).toBe(200);
      await waitFor(
        () => cs.consoleProcess.logs().some((l) => l.includes('sign-in mail not sent')),
        { timeoutMs: 15_000, what: 'a failed send' },
      );
    } finally {
      await cs.startMailbox();
    }
    const link = await nthLink(owner.email, 0);
    expect((await newClient().post(pathOf(link), {})).status).toBe(303);
  });
});

describe('the receiver guide (finding 5)', () => {
  // Injected code would print INJECTED, a word the values themselves never spell.
  const hostilePath = "/hooks/a',process.stdout.write('INJ'+'ECTED-PATH'),'/\"b`${1}";

  it('refuses control characters in labels, on add and on edit, with a field error', async () => {
    const { brand, owner } = await brandWithOwner();
    const http = await signIn(owner.email);
    const base = `/brands/${brand.id}/receivers`;
    let page = await http.get(base);
    const form = { url: 'https://localhost:8443/hooks', events: 'payout.paid' };
    for (const label of ['Orders\nprocess.exit(9)', 'Orders\u2028x', 'Tab\there', 'Esc\u001b[2J']) {
      const refused = await http.post(base, { ...form, label, _csrf: csrfOf(page.body) });
      expect({ label, status: refused.status }).toEqual({ label, status: 400 });
      expect(refused.body).toContain('label: must be one line, without control characters');
      page = refused;
    }
    const added = await http.post(base, { ...form, label: 'Orders', _csrf: csrfOf(page.body) });
    expect(added.status).toBe(303);
    const id = /\/receivers\/(rcv_[A-Za-z0-9]+)\//.exec(added.location!)![1]!;
    page = await http.get(`${base}/${id}`);
    const edit = await http.post(`${base}/${id}/edit`, {
      ...form,
      label: 'Orders\r\nx',
      _csrf: csrfOf(page.body),
    });
    expect(edit.status).toBe(400);
    expect(edit.body).toContain('label: must be one line, without control characters');
  });

  it("keeps an owner's label and URL path as data in the example, which verifies a real delivery", async () => {
    const { brand, owner } = await brandWithOwner();
    const http = await signIn(owner.email);
    const front = await startTlsFront(cs.ca.tls);
    let example: RunningExample | undefined;
    try {
      const base = `/brands/${brand.id}/receivers`;
      const label = 'Orders "A" \'B\' \\ `C` ${process.exit(7)} */ </code>';
      const url = `https://localhost:${front.port}${hostilePath}`;
      const page = await http.get(base);
      const added = await http.post(base, {
        url,
        label,
        events: 'payout.paid',
        _csrf: csrfOf(page.body),
      });
      expect(added.status).toBe(303);
      const secret = /(whsec_[A-Za-z0-9_-]+)/.exec((await http.get(added.location!)).body)?.[1];
      expect(secret).toBeDefined();
      const id = /\/receivers\/(rcv_[A-Za-z0-9]+)\//.exec(added.location!)![1]!;

      // the guide is on the receiver's testing tab
      const receiverPage = await http.get(`${base}/${id}/testing`);
      example = await runExample(exampleCodeOf(receiverPage.body), secret!);
      front.forwardTo(Number(new URL(example.url).port));
      // The label reached the program as a string: printed whole, nothing run.
      expect(example.output()).toContain(label);

      // A real delivery: the webhooks service's Test, signed with the receiver's secret.
      const tested = await http.post(`${base}/${id}/test`, {
        event_type: 'payout.paid',
        _csrf: csrfOf(receiverPage.body),
      });
      expect(tested.status).toBe(303);
      await waitFor(() => front.answered.some((a) => a.event === 'payout.paid'), {
        timeoutMs: 20_000,
        what: 'the test delivery to reach the example',
      });
      expect(front.answered.filter((a) => a.event === 'payout.paid')).toEqual([
        { event: 'payout.paid', status: 204 },
      ]);

      // It verifies: another secret and a stale timestamp are refused (401 both: not authentic,
      // not fresh), a request that is not a delivery is 400, a fresh signed one 204.
      const at = `${example.url}${new URL(url).pathname}`;
      expect(await deliver(at, signedDelivery({ secret: 'whsec_someoneElse' }))).toBe(401);
      const stale = Math.floor(Date.now() / 1000) - 301;
      expect(await deliver(at, signedDelivery({ secret: secret!, timestamp: stale }))).toBe(401);
      expect(await deliver(at, { headers: {}, body: '{}' })).toBe(400);
      expect(await deliver(at, signedDelivery({ secret: secret! }))).toBe(204);
      // The event header is not signed (a review of 2026-11-29): a signed event of a type the
      // receiver did not select, relabelled as one it did, is 400; a body that is not JSON is
      // 400, never a 500.
      const other = signedDelivery({ secret: secret!, type: 'submission.approved' });
      const relabelled = {
        ...other,
        headers: { ...other.headers, 'x-service-event': 'payout.paid' },
      };
      expect(await deliver(at, relabelled)).toBe(400);
      const signed = signedDelivery({ secret: secret! });
      const notJson = { ...signed, headers: { ...signed.headers, 'content-type': 'text/plain' } };
      expect(await deliver(at, notJson)).toBe(400);
      expect(await deliver(`${example.url}/hooks/other`, signedDelivery({ secret: secret! }))).toBe(
        404,
      );
      expect(example.output()).not.toContain('INJECTED');
      expect(example.running()).toBe(true);
    } finally {
      await example?.stop();
      await front.close();
    }
  });

  it('keeps a label stored before the rule (a newline, a line separator) as data too', async () => {
    const secret = 'whsec_guideTest0000000000000000000000';
    for (const label of [
      'Orders\nprocess.stdout.write("INJ" + "ECTED-NEWLINE"); //',
      'Orders\u2028process.stdout.write("INJ" + "ECTED-LINE-SEPARATOR"); //',
      'Orders\r\nprocess.stdout.write("INJ" + "ECTED-CRLF"); //',
    ]) {
      const receiver = Receiver.fromPartial({
        label,
        url: `https://hooks.example${hostilePath}`,
        events: [EVENT_TYPES.toProto('payout.paid')],
      });
      const html = renderToString(ReceiverGuide({ receiver }));
      const example = await runExample(exampleCodeOf(html), secret);
      try {
        const at = `${example.url}${new URL(receiver.url).pathname}`;
        expect(await deliver(at, signedDelivery({ secret }))).toBe(204);
        expect(example.output()).not.toContain('INJECTED');
        expect(example.running()).toBe(true);
      } finally {
        await example.stop();
      }
    }
  });
});
