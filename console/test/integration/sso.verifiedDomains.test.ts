// Through the console's HTTP surface against real records, a real OpenID provider (oidc-provider,
// startTestIdp) and a real DNS server (scripts/dev-dns, startTestDns) that records asks through
// node:dns:
// - verified domains: a brand's single sign-on admits and routes addresses only at domains it
//   proved by a DNS TXT record; another brand listing the same domain captures nobody and hides
//   nobody; a verified domain belongs to one brand at a time, even when two prove it at once;
// - a hostile discovery document makes POST /sign-in/sso a 422 with a stable code, never a 500;
// - no lock-out by configuration: while SSO is required, a change leaving no owner a way in is
//   refused; changing a connection in use needs a fresh sign-in through it.
import {
  randomHex,
  waitFor,
  startHostileIssuer,
  startTestIdp,
  type HostileIssuer,
  type TestIdp,
} from '@brand/testkit';
import { csrfOf, type ConsoleHttp } from '../browserlessClient';
import { signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import {
  brandWithSso,
  idpClient,
  proofRecordOf,
  providerSetLongAgo,
  signInWithSso,
  startSso,
  verifyDomainHttp,
} from '../ssoActors';

let cs: ConsoleStack;
let idp: TestIdp;
let hostile: HostileIssuer;
let registered: ReturnType<typeof idpClient>[];
let next = 0;
const nextClient = () => registered[next++]!;

/** How long a verified domain's missing record is borne here. */
const GRACE_MS = 8_000;

beforeAll(async () => {
  // Verified domains re-checked every second, failed after eight seconds missing (issue 59;
  // a day and 72 hours in production): a record left in place is simply found again. Eight,
  // not three: the grace period must outlast the owners' mail and a page read on a loaded
  // machine (a fresh-clone run at load 10 found the domain already failed when it looked).
  cs = await startConsoleStack({
    signInOnly: true,
    recordsEnv: { SSO_DOMAIN_RECHECK_INTERVAL_MS: '1000', SSO_DOMAIN_GRACE_MS: String(GRACE_MS) },
  });
  registered = Array.from({ length: 16 }, (_, i) => idpClient(cs, `d${i}`));
  idp = await startTestIdp({ clients: registered });
  hostile = await startHostileIssuer();
}, 120_000);
afterAll(async () => {
  await hostile?.close();
  await idp?.close();
  await cs?.close();
});

/** Saves the brand's connection through its Single sign-on page; the page's answer. */
async function saveConnection(
  http: ConsoleHttp,
  brandId: string,
  fields: { issuer: string; client_id: string; client_secret?: string; domains: string[] },
) {
  const page = await http.get(`/brands/${brandId}/sso`);
  return http.post(`/brands/${brandId}/sso`, {
    _csrf: csrfOf(page.body),
    issuer: fields.issuer,
    client_id: fields.client_id,
    client_secret: fields.client_secret ?? '',
    allowed_domains: fields.domains.join('\n'),
    enabled: 'on',
  });
}

/** A second brand whose owner connects the same provider (its own client) for `domains`. */
async function claimingBrand(domains: string[]) {
  const made = await cs.stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner@claimer-${randomHex(4)}.test`,
  });
  const ownerHttp = await signInHttp(cs, made.owner.email);
  const client = nextClient();
  const saved = await saveConnection(ownerHttp, made.brand.id, {
    issuer: idp.issuer,
    client_id: client.client_id,
    client_secret: client.client_secret,
    domains,
  });
  expect(saved.status).toBe(303);
  return { ...made, ownerHttp };
}

const domainRow = async (brandId: string, domain: string) =>
  (
    await cs.stack.db.pool.query<{
      state: string;
      problem: string | null;
      token: string;
      checked_at: string | null;
      proof_missing_since: string | null;
    }>(
      `select state, problem, token, checked_at::text, proof_missing_since::text
         from records.sso_domains where brand_id = $1 and domain = $2`,
      [brandId, domain],
    )
  ).rows[0];

describe('verified domains', () => {
  it('routes an address only to the brand that proved its domain; a claim alone captures nobody', async () => {
    const a = await brandWithSso(cs, idp, nextClient());
    const member = { email: `member-${randomHex(3)}@${a.domain}`, password: 'pw-member' };
    await cs.stack.admin.addMember({ brandId: a.brand.id, email: member.email, role: 'member' });
    idp.addUser(member);
    // Brand B lists A's domain (and one nobody proved) without controlling their DNS.
    const lonely = `lonely-${randomHex(3)}.test`;
    const b = await claimingBrand([a.domain, lonely]);

    // A's members still go to A's provider and sign in there (today: 404 for everyone at it).
    const started = await startSso(cs, { email: member.email });
    expect(started.answer.status).toBe(200);
    expect(started.answer.body).toContain(a.brand.name);
    const signedIn = await signInWithSso(cs, member);
    expect(signedIn.answer).toMatchObject({ status: 303, location: `/brands/${a.brand.id}` });

    // A domain only B claims sends nobody to B's provider (today: everyone at it went there).
    const toB = await startSso(cs, { email: `someone@${lonely}` });
    expect(toB.answer.status).toBe(404);
    expect(toB.answer.headers.get('x-console-error')).toBe('sso_not_configured');

    // B cannot prove A's domain: the DNS holds A's value, not B's.
    const tried = await b.ownerHttp.get(`/brands/${b.brand.id}/sso`);
    const pressed = await b.ownerHttp.post(`/brands/${b.brand.id}/sso/domains/verify`, {
      _csrf: csrfOf(tried.body),
      domain: a.domain,
    });
    expect(pressed.location).toBe(`/brands/${b.brand.id}/sso?done=checked#domain-${a.domain}`);
    const refused = await domainRow(b.brand.id, a.domain);
    expect(refused?.state).toBe('failed');
    expect(refused?.problem).toContain('do not include this brand');
    // Even if B could publish its own value there, the domain stays A's: one brand at a time.
    await verifyDomainHttp(cs, b.ownerHttp, b.brand.id, a.domain);
    const held = await domainRow(b.brand.id, a.domain);
    expect(held?.state).toBe('failed');
    expect(held?.problem).toMatch(/Another brand has verified this domain/);
    expect((await signInWithSso(cs, member)).answer.location).toBe(`/brands/${a.brand.id}`);
  });

  it('shows each domain pending with its record, failed with why, then verified', async () => {
    const made = await cs.stack.admin.createBrand({
      tier: 'plus',
      verified: true,
      ownerEmail: `owner@page-${randomHex(4)}.test`,
    });
    const domain = made.owner.email.split('@')[1]!;
    const http = await signInHttp(cs, made.owner.email);
    const client = nextClient();
    await saveConnection(http, made.brand.id, {
      issuer: idp.issuer,
      client_id: client.client_id,
      client_secret: client.client_secret,
      domains: [domain],
    });
    const pending = await http.get(`/brands/${made.brand.id}/sso`);
    expect(pending.body).toContain('Pending: publish the record, then verify');
    const record = proofRecordOf(pending.body, domain);
    expect(record.name).toBe(`_brand-records-verification.${domain}`);
    expect(record.value).toMatch(/^brand-records-verification=[A-Za-z0-9]{32}$/);
    // Nobody at a pending domain can sign in with it yet.
    expect((await startSso(cs, { email: made.owner.email })).answer.status).toBe(404);

    const before = cs.dns.queries(record.name);
    const missing = await http.post(`/brands/${made.brand.id}/sso/domains/verify`, {
      _csrf: csrfOf(pending.body),
      domain,
    });
    expect(missing.status).toBe(303);
    expect(cs.dns.queries(record.name)).toBeGreaterThan(before);
    const failed = await http.get(missing.location!);
    expect(failed.body).toMatch(
      /Not verified \(checked [^)]+\): No TXT record at _brand-records-verification\./,
    );

    const verified = await verifyDomainHttp(cs, http, made.brand.id, domain);
    const page = await http.get(verified.location!);
    expect(page.body).toContain('Domain verified');
    expect(page.body).toMatch(/<span class="status-succeeded">Verified \d{4}-/);
    const { rows } = await cs.stack.db.pool.query<{ summary: string }>(
      `select summary from records.activity where brand_id = $1 and action = 'brand.sso_domain_verified'`,
      [made.brand.id],
    );
    expect(rows).toEqual([{ summary: `Single sign-on domain verified by DNS: ${domain}` }]);
  });

  it('lets exactly one of two brands proving one domain at the same moment have it', async () => {
    const domain = `race-${randomHex(4)}.test`;
    const one = await claimingBrand([domain]);
    const two = await claimingBrand([domain]);
    const pages = await Promise.all(
      [one, two].map((b) => b.ownerHttp.get(`/brands/${b.brand.id}/sso`)),
    );
    const records = pages.map((p) => proofRecordOf(p.body, domain));
    cs.dns.publishTxt(
      records[0]!.name,
      records.map((r) => r.value),
    );
    await Promise.all(
      [one, two].map((b, i) =>
        b.ownerHttp.post(`/brands/${b.brand.id}/sso/domains/verify`, {
          _csrf: csrfOf(pages[i]!.body),
          domain,
        }),
      ),
    );
    const { rows } = await cs.stack.db.pool.query<{ state: string }>(
      `select state from records.sso_domains where domain = $1 order by state`,
      [domain],
    );
    expect(rows.map((r) => r.state)).toEqual(['failed', 'verified']);
  });
});

describe('a hostile discovery document at sign-in', () => {
  it.each([
    ['javascript:', 'javascript:alert(document.cookie)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
  ])(
    'a %s authorization endpoint is a 422 with a stable code, never a 500',
    async (_n, endpoint) => {
      const made = await cs.stack.admin.createBrand({
        tier: 'plus',
        verified: true,
        ownerEmail: `owner@hostile-${randomHex(4)}.test`,
      });
      const domain = made.owner.email.split('@')[1]!;
      const http = await signInHttp(cs, made.owner.email);
      hostile.serve({ document: hostile.benignDocument() });
      expect(
        (
          await saveConnection(http, made.brand.id, {
            issuer: hostile.origin,
            client_id: `hostile-${randomHex(4)}`,
            client_secret: 'secret',
            domains: [domain],
          })
        ).status,
      ).toBe(303);
      await verifyDomainHttp(cs, http, made.brand.id, domain);
      hostile.serve({
        document: { ...hostile.benignDocument(), authorization_endpoint: endpoint },
      });
      const { answer } = await startSso(cs, { email: made.owner.email });
      expect(answer.status).toBe(422);
      expect(answer.headers.get('x-console-error')).toBe('sso_provider_refused');
      expect(answer.body).toContain('authorization_endpoint');
      expect(answer.body).not.toContain(endpoint);
    },
  );
});

describe('no lock-out by configuration', () => {
  /** A brand requiring SSO, its owner signed in through it (a fresh proof), and that session. */
  async function requiredBrand() {
    const b = await brandWithSso(cs, idp, nextClient());
    idp.addUser({ email: b.owner.email, password: 'pw-owner' });
    const { http } = await signInWithSso(cs, { email: b.owner.email, password: 'pw-owner' });
    await providerSetLongAgo(cs, b.brand.id);
    const members = await http.get(`/brands/${b.brand.id}/members`);
    const set = await http.post(`/brands/${b.brand.id}/members/sign-in-policy`, {
      _csrf: csrfOf(members.body),
      policy: 'sso',
    });
    expect(set.status).toBe(303);
    return { ...b, client: registered[next - 1]!, sso: http };
  }

  it('refuses domains that would leave no owner able to sign in while SSO is required', async () => {
    const b = await requiredBrand();
    const changed = await saveConnection(b.sso, b.brand.id, {
      issuer: idp.issuer,
      client_id: b.client.client_id,
      domains: ['nobody-has-this.test'],
    });
    expect(changed.status).toBe(422);
    expect(changed.headers.get('x-console-error')).toBe('sso_required');
    expect(changed.body).toContain('no current owner could sign in');
    // Another provider has let nobody in yet: refused as well.
    const moved = await saveConnection(b.sso, b.brand.id, {
      issuer: idp.issuer,
      client_id: nextClient().client_id,
      domains: [b.domain],
    });
    expect(moved.status).toBe(422);
    expect(moved.body).toContain('nobody has signed in through another provider');
    // The owner's next sign-in still works (before: 401, the domain gone).
    const again = await signInWithSso(cs, { email: b.owner.email, password: 'pw-owner' });
    expect(again.answer).toMatchObject({ status: 303, location: `/brands/${b.brand.id}` });
  });

  it('changes a connection in use only with a fresh sign-in through it', async () => {
    const b = await brandWithSso(cs, idp, nextClient());
    const client = registered[next - 1]!;
    const extra = `extra-${randomHex(3)}.test`;
    const change = (http: ConsoleHttp) =>
      saveConnection(http, b.brand.id, {
        issuer: idp.issuer,
        client_id: client.client_id,
        domains: [b.domain, extra],
      });
    // The owner's emailed-link session: refused, and the page says how to give the proof.
    const fromLink = await change(b.ownerHttp);
    expect(fromLink.status).toBe(422);
    expect(fromLink.headers.get('x-console-error')).toBe('sso_proof_required');
    const page = await b.ownerHttp.get(`/brands/${b.brand.id}/sso`);
    expect(page.body).toContain(`href="/sign-in/sso?brand=${b.brand.id}"`);
    const removed = await b.ownerHttp.post(`/brands/${b.brand.id}/sso/remove`, {
      _csrf: csrfOf(page.body),
    });
    expect(removed.status).toBe(422);
    // Verify now needs no proof: it changes nothing the owner typed.

    idp.addUser({ email: b.owner.email, password: 'pw-owner' });
    const { http } = await signInWithSso(cs, { email: b.owner.email, password: 'pw-owner' });
    expect((await http.get(`/brands/${b.brand.id}/sso`)).body).toContain(
      'You signed in with single sign-on: you may change it until',
    );
    expect(await change(http)).toMatchObject({ status: 303 });
    expect(await domainRow(b.brand.id, extra)).toMatchObject({ state: 'pending' });

    // Ten minutes later the same session is no longer a fresh proof.
    await cs.stack.db.pool.query(
      `update records.console_sessions set created_at = created_at - interval '11 minutes'
        where email = $1 and sign_in_method = 'sso'`,
      [b.owner.email],
    );
    expect((await change(http)).status).toBe(422);
  });
});

describe('domains stay proven (issue 59 part 6)', () => {
  it('a record removed from DNS is mailed to the owners, then ends the proof and the routing', async () => {
    const b = await brandWithSso(cs, idp, nextClient());
    const member = `member@${b.domain}`;
    await cs.stack.admin.addMember({ brandId: b.brand.id, email: member, role: 'member' });
    idp.addUser({ email: member, password: 'pw-member' });
    expect((await signInWithSso(cs, { email: member, password: 'pw-member' })).answer.status).toBe(
      303,
    );
    // The scheduled check finds the record and says when it looked.
    await waitFor(
      async () =>
        Date.parse((await domainRow(b.brand.id, b.domain))!.checked_at ?? '') > Date.now() - 2_000,
      { timeoutMs: 10_000, what: 'a scheduled check' },
    );
    expect((await b.ownerHttp.get(`/brands/${b.brand.id}/sso`)).body).toContain('last checked');

    cs.dns.removeTxt(`_brand-records-verification.${b.domain}`);
    const mailed = await waitFor(
      () => cs.mailTextsTo(b.owner.email).find((t) => t.includes('no longer finds the TXT record')),
      { timeoutMs: 10_000, what: 'the mail that the proof is missing' },
    );
    expect(mailed).toContain(b.domain);
    expect((await b.ownerHttp.get(`/brands/${b.brand.id}/sso`)).body).toContain(
      'was not found since',
    );
    // Still verified during the grace period: members sign in as before.
    expect(await domainRow(b.brand.id, b.domain)).toMatchObject({ state: 'verified' });

    await waitFor(async () => (await domainRow(b.brand.id, b.domain))?.state === 'failed', {
      timeoutMs: 30_000,
      what: 'the domain to fail',
    });
    await waitFor(
      () => cs.mailTextsTo(b.owner.email).some((t) => t.includes('is no longer verified')),
      { timeoutMs: 10_000, what: 'the mail that the domain failed' },
    );
    // Nobody at the domain is routed to the brand any more.
    const { answer } = await startSso(cs, { email: member });
    expect(answer.status).toBe(404);
    const actions = (
      await cs.stack.db.pool.query<{ action: string }>(
        `select action from records.activity where brand_id = $1 order by created_at, id`,
        [b.brand.id],
      )
    ).rows.map((r) => r.action);
    expect(actions).toEqual(
      expect.arrayContaining(['brand.sso_domain_proof_missing', 'brand.sso_domain_failed']),
    );
  });

  it('a record found again within the grace period keeps the domain verified', async () => {
    const b = await brandWithSso(cs, idp, nextClient());
    const name = `_brand-records-verification.${b.domain}`;
    const row = await domainRow(b.brand.id, b.domain);
    cs.dns.removeTxt(name);
    await waitFor(
      async () => (await domainRow(b.brand.id, b.domain))?.proof_missing_since !== null,
      { timeoutMs: 10_000, what: 'the record to be missed' },
    );
    cs.dns.publishTxt(name, [`brand-records-verification=${row!.token}`]);
    await waitFor(
      async () => (await domainRow(b.brand.id, b.domain))?.proof_missing_since === null,
      { timeoutMs: 10_000, what: 'the record to be found again' },
    );
    await new Promise((r) => setTimeout(r, GRACE_MS + 500)); // past the grace period
    expect(await domainRow(b.brand.id, b.domain)).toMatchObject({
      state: 'verified',
      proof_missing_since: null,
    });
  });
});
