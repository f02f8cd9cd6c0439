// Two owners saving the Provisioning settings from pages opened at the same time (a hostile review
// of lost updates, 2026-12-01). The settings are stored whole and the form posts all three, so a
// save of the groups claim from a page opened earlier turned "revoke the API keys a
// deprovisioned person created" off again, silently, just after another owner had turned it on.
// A save now changes only what the person changed (forms/shownFields.ts); the same setting
// changed by both is refused to the second (409) rather than overwritten. Real records and console.
import { Role } from '@brand/proto/access/v1';
import { randomHex } from '@brand/testkit';
import type { ConsoleHttp } from '../browserlessClient';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
}, 120_000);
afterAll(() => cs?.close());

/** The settings form as a browser posts it untouched (a ticked box posts "on"). */
function settingsForm(page: string, action: string): Record<string, string> {
  const start = page.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action}`);
  const form = page.slice(start, page.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const [input] of form.matchAll(/<input [^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(input)?.[1];
    const value = /value="([^"]*)"/.exec(input)?.[1];
    if (!name) continue;
    if (/type="checkbox"/.test(input)) {
      if (/ checked/.test(input)) fields[name] = value ?? 'on';
    } else fields[name] = value ?? '';
  }
  return fields;
}

async function twoOwners() {
  const { brand, owner } = await brandWithOwner(cs);
  const second = await cs.stack.admin.addMember({
    brandId: brand.id,
    email: `second-${randomHex(4)}@brand.test`,
    role: Role.ROLE_OWNER,
  });
  const pagePath = `/brands/${brand.id}/provisioning`;
  const action = `${pagePath}/settings`;
  const open = async (http: ConsoleHttp) => settingsForm((await http.get(pagePath)).body, action);
  const a = await signInHttp(cs, owner.email);
  const b = await signInHttp(cs, second.email);
  return { brand, action, a, b, formA: await open(a), formB: await open(b) };
}

const stored = async (brandId: string) =>
  (
    await cs.stack.db.pool.query<{ jit_groups_claim: string; revoke_keys_on_deprovision: boolean }>(
      'select jit_groups_claim, revoke_keys_on_deprovision from records.brands where id = $1',
      [brandId],
    )
  ).rows[0];

it("keeps one owner's 'revoke the keys' when another saves the groups claim from an older page", async () => {
  const t = await twoOwners();
  const on = await t.a.post(t.action, { ...t.formA, revoke_keys_on_deprovision: 'on' });
  expect(on.status).toBe(303);
  const claim = await t.b.post(t.action, { ...t.formB, jit_groups_claim: 'roles' });
  expect(claim.status).toBe(303);
  expect(await stored(t.brand.id)).toEqual({
    jit_groups_claim: 'roles',
    revoke_keys_on_deprovision: true,
  });
});

it('refuses the second change of the same setting, naming it', async () => {
  const t = await twoOwners();
  expect((await t.a.post(t.action, { ...t.formA, jit_groups_claim: 'teams' })).status).toBe(303);
  const second = await t.b.post(t.action, { ...t.formB, jit_groups_claim: 'roles' });
  expect(second.status).toBe(409);
  expect(second.body).toContain('someone else changed the');
  expect((await stored(t.brand.id))?.jit_groups_claim).toBe('teams');
});
