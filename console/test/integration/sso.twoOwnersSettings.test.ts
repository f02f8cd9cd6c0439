// Two owners saving the Single sign-on form from pages opened at the same time (a hostile review
// of lost updates, 2026-12-01). The form posts the issuer, client id, domains and "members may
// sign in with it" together, and they were written as one: an owner's "disable single sign-on"
// (say, the identity provider was taken over) was silently undone by another owner's domain edit
// from a page opened before. A save now changes only what the person changed, the rest as stored
// (forms/shownFields.ts), and records writes it only onto the connection it was decided on; the
// same field changed by both is refused to the second (409, edit_conflict). Real records,
// console and identity provider (oidc-provider, packages/testkit/src/testIdp.ts).
import { randomHex } from '@brand/testkit';
import type { TestIdp } from '@brand/testkit';
import { formAsPosted, type ConsoleHttp } from '../browserlessClient';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { brandWithSso, idpClient, signInWithSso, startTestIdp } from '../ssoActors';

let cs: ConsoleStack;
let idp: TestIdp;
const clients = Array.from({ length: 4 }, (_, i) => `two-${i}`);
let registered: ReturnType<typeof idpClient>[];

beforeAll(async () => {
  cs = await startConsoleStack();
  registered = clients.map((name) => idpClient(cs, name));
  idp = await startTestIdp({ clients: registered });
}, 120_000);
afterAll(async () => {
  await idp?.close();
  await cs?.close();
});

let next = 0;
const nextClient = () => registered[next++]!;

/** A brand whose single sign-on is in use, with two owners freshly signed in through it. */
async function twoOwners() {
  const { brand, domain, owner } = await brandWithSso(cs, idp, nextClient());
  const second = await cs.stack.admin.addMember({
    brandId: brand.id,
    email: `second-${randomHex(4)}@${domain}`,
    role: 'owner',
  });
  const signIn = async (email: string) => {
    idp.addUser({ email, password: `pw-${email}` });
    return (await signInWithSso(cs, { email, password: `pw-${email}` })).http;
  };
  const action = `/brands/${brand.id}/sso`;
  const open = async (http: ConsoleHttp) => formAsPosted((await http.get(action)).body, action);
  const a = await signIn(owner.email);
  const b = await signIn(second.email);
  return { brand, domain, action, a, b, formA: await open(a), formB: await open(b) };
}

const stored = async (brandId: string) =>
  (
    await cs.stack.db.pool.query<{ allowed_domains: string[]; enabled: boolean }>(
      'select allowed_domains, enabled from records.sso_connections where brand_id = $1',
      [brandId],
    )
  ).rows[0];

it("keeps one owner's 'disable single sign-on' when another saves a domain from an older page", async () => {
  const t = await twoOwners();
  const { enabled: _on, ...disabled } = t.formA;
  const off = await t.a.post(t.action, disabled);
  expect(off.status).toBe(303);
  expect((await stored(t.brand.id))?.enabled).toBe(false);
  const more = `${t.domain}\nmore-${t.domain}`;
  const domains = await t.b.post(t.action, { ...t.formB, allowed_domains: more });
  expect(domains.status).toBe(303);
  expect(await stored(t.brand.id)).toEqual({
    allowed_domains: [t.domain, `more-${t.domain}`],
    enabled: false,
  });
});

it('refuses the second change of the same field, naming it', async () => {
  const t = await twoOwners();
  const first = await t.a.post(t.action, {
    ...t.formA,
    allowed_domains: `${t.domain}\nfirst-${t.domain}`,
  });
  expect(first.status).toBe(303);
  const second = await t.b.post(t.action, {
    ...t.formB,
    allowed_domains: `${t.domain}\nsecond-${t.domain}`,
  });
  expect(second.status).toBe(409);
  expect(second.headers.get('x-console-error')).toBe('edit_conflict');
  expect(second.body).toContain('allowed email domains');
  expect(second.body).toContain('someone else changed the');
  expect((await stored(t.brand.id))?.allowed_domains).toEqual([t.domain, `first-${t.domain}`]);
});
