// A hostile review of the one-time secret pages (2026-12-01): who can read a new key's secret,
// or make the person who created it lose it. Another session of the same person, another
// member of the brand and a member of another brand all find nothing and leave the secret
// where it is; another session posting the same form token creates its own key. One finding:
// the page read the secret by its id alone, so the same id under another brand the person is a
// member of (or another kind's page) showed brand A's key under brand B's name and spent it,
// leaving the page it was made for empty. The secret is now bound to its brand and page.
// Real records, webhooks, plans, gateway, SMTP sink and console.
import { csrfOf, type ConsoleHttp } from '../browserlessClient';
import { randomHex } from '@brand/testkit';
import { brandWithOwner, hiddenFields, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack();
}, 120_000);
afterAll(() => cs?.close());

/** Creates a key through the brand's form; the form posted and where it sent the browser. */
async function createKey(http: ConsoleHttp, brandId: string, name: string) {
  const base = `/brands/${brandId}/keys`;
  const form = { ...hiddenFields((await http.get(base)).body, base), name, environment: 'live' };
  const posted = await http.post(base, form);
  expect(posted.status).toBe(303);
  expect(posted.location).toMatch(new RegExp(`^${base}/created/[A-Za-z0-9_-]{24}$`));
  return { form, location: posted.location!, revealId: posted.location!.split('/').pop()! };
}

it('only the session that created a key reads its secret, on its own page; nobody makes it lose it', async () => {
  const { brand, owner } = await brandWithOwner(cs);
  const other = await brandWithOwner(cs);
  // the owner is also a member of another brand
  await cs.stack.admin.addMember({ brandId: other.brand.id, email: owner.email, role: 'owner' });
  const memberEmail = `owner-${randomHex(4)}@brand.test`;
  await cs.stack.admin.addMember({ brandId: brand.id, email: memberEmail, role: 'owner' });

  const http = await signInHttp(cs, owner.email);
  const { form, location, revealId } = await createKey(http, brand.id, 'Rightful');
  const [key] = await cs.stack.admin.listKeys(brand.id);

  const member = await signInHttp(cs, memberEmail);
  const outsider = await signInHttp(cs, other.owner.email);
  const sameOwnerElsewhere = await signInHttp(cs, owner.email);
  const tries: Array<[ConsoleHttp, string, number]> = [
    [member, location, 410],
    [sameOwnerElsewhere, location, 410],
    [outsider, location, 404],
    [outsider, `/brands/${other.brand.id}/keys/created/${revealId}`, 410],
    // the creator's own session, under their other brand and on other kinds' pages
    [http, `/brands/${other.brand.id}/keys/created/${revealId}`, 410],
    [http, `/brands/${brand.id}/audit-streams/created/${revealId}`, 410],
    [http, `/brands/${brand.id}/provisioning/tokens/created/${revealId}`, 410],
    [http, `/brands/${brand.id}/receivers/rcv_${'a'.repeat(20)}/created/${revealId}`, 410],
  ];
  for (const [who, path, status] of tries) {
    const answer = await who.get(path);
    expect({ path, status: answer.status }).toEqual({ path, status });
    expect(answer.body).not.toContain(key!.prefix);
  }

  // another session posting the same form token creates its own key, not this one's page
  const memberPage = await member.get(`/brands/${brand.id}/keys`);
  const replayed = await member.post(`/brands/${brand.id}/keys`, {
    ...form,
    _csrf: csrfOf(memberPage.body),
  });
  expect(replayed.status).toBe(303);
  expect(replayed.location).not.toBe(location);
  expect(await cs.stack.admin.listKeys(brand.id)).toHaveLength(2);

  // the rightful page still shows it, once
  const shown = await http.get(location);
  expect(shown.status).toBe(200);
  expect(shown.body).toContain(key!.prefix);
  expect((await http.get(location)).status).toBe(410);
});
