// Two owners saving a key's allowed networks from pages opened at the same time (a hostile review
// of lost updates, 2026-12-01). The page posts the whole list and the console wrote it, so a save
// from a page opened earlier put back a network another owner had just removed: a tightening
// undone, silently. The list is one field of the shown-fields rule (forms/shownFields.ts): a save
// from a page whose list has changed since is refused (409, edit_conflict) when this person changed
// it too, and a save that leaves the list as shown writes nothing. Real records and console.
import { randomHex } from '@brand/testkit';
import type { ConsoleHttp } from '../browserlessClient';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
}, 120_000);
afterAll(() => cs?.close());

/** The networks form as a browser posts it untouched. */
function networksForm(page: string, action: string): Record<string, string> {
  const start = page.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action}`);
  const form = page.slice(start, page.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const [input] of form.matchAll(/<input [^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(input)?.[1];
    if (name) fields[name] = /value="([^"]*)"/.exec(input)?.[1] ?? '';
  }
  const text = /<textarea [^>]*name="allowed_networks"[^>]*>([\s\S]*?)<\/textarea>/.exec(form);
  fields.allowed_networks = text?.[1] ?? '';
  return fields;
}

const KEPT = '203.0.113.0/24';
const REMOVED = '198.51.100.0/24';

async function twoOwnersOneKey() {
  const { brand, owner } = await brandWithOwner(cs);
  const second = await cs.stack.admin.addMember({
    brandId: brand.id,
    email: `second-${randomHex(4)}@brand.test`,
    role: 'owner',
  });
  const { key } = await cs.stack.admin.createKey({
    brandId: brand.id,
    actorEmail: owner.email,
    name: `Warehouse sync ${randomHex(2)}`,
    allowedNetworks: [KEPT, REMOVED],
  });
  const action = `/brands/${brand.id}/keys/${key.id}/networks`;
  const open = async (http: ConsoleHttp) => networksForm((await http.get(action)).body, action);
  const a = await signInHttp(cs, owner.email);
  const b = await signInHttp(cs, second.email);
  return { brand, key, action, a, b, formA: await open(a), formB: await open(b) };
}

const networksOf = async (keyId: string) =>
  (
    await cs.stack.db.pool.query<{ allowed_networks: string[] }>(
      'select allowed_networks from records.api_keys where id = $1',
      [keyId],
    )
  ).rows[0]?.allowed_networks;

it("refuses a stale page's list over another owner's removal of a network, naming it", async () => {
  const t = await twoOwnersOneKey();
  const tightened = await t.a.post(t.action, { ...t.formA, allowed_networks: KEPT });
  expect(tightened.status).toBe(303);
  const added = await t.b.post(t.action, {
    ...t.formB,
    allowed_networks: `${KEPT}\n${REMOVED}\n192.0.2.0/24`,
  });
  expect(added.status).toBe(409);
  expect(added.headers.get('x-console-error')).toBe('edit_conflict');
  expect(added.body).toContain('allowed networks');
  expect(added.body).toContain('someone else changed the');
  expect(await networksOf(t.key.id)).toEqual([KEPT]);
});

it('a save of the list as the page showed it does not put a removed network back', async () => {
  const t = await twoOwnersOneKey();
  expect((await t.a.post(t.action, { ...t.formA, allowed_networks: KEPT })).status).toBe(303);
  const untouched = await t.b.post(t.action, t.formB);
  expect(untouched.status).toBe(303);
  expect(await networksOf(t.key.id)).toEqual([KEPT]);
});

it.each([
  ['an admin', 'admin'],
  ['a member', 'member'],
] as const)(
  'refuses the page and the form to %s, even a post that changes nothing, rather than answering "saved"',
  async (_, role) => {
    const t = await twoOwnersOneKey();
    const person = await cs.stack.admin.addMember({
      brandId: t.brand.id,
      email: `${role}-${randomHex(4)}@brand.test`,
      role,
    });
    const http = await signInHttp(cs, person.email);
    // the page says why and offers no form
    const page = await http.get(t.action);
    expect(page.status).toBe(403);
    expect(page.body).toContain(
      `Only brand owners set a key's allowed networks. You are a ${role} of this brand.`,
    );
    expect(page.body).not.toContain('name="allowed_networks"');
    // the form as an owner's page has it, posted untouched and changed: refused, the list as it was
    const untouched = await http.post(t.action, t.formA);
    expect(untouched.status).toBe(403);
    expect(untouched.body).not.toContain('name="allowed_networks"');
    const changed = await http.post(t.action, { ...t.formA, allowed_networks: KEPT });
    expect(changed.status).toBe(403);
    expect(await networksOf(t.key.id)).toEqual([KEPT, REMOVED]);
  },
);
