// A group mapping saved before records kept group names to the shared rules of a name (10332c6:
// text-direction controls refused) could not be removed from the Provisioning page: its Remove
// posts the stored key, and records read that key by the rules of a new name, so it answered
// 400 "The group must not contain text-direction controls." and the row stayed. Removal names
// a row that exists: it must take the stored key exactly. Real records and console.
import { csrfOf, type ConsoleHttp } from '../browserlessClient';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
}, 120_000);
afterAll(() => cs?.close());

/** The brand's mappings as records stores them. */
async function mappingsOf(brandId: string): Promise<string[]> {
  const { rows } = await cs.stack.db.pool.query<{ group_key: string }>(
    'select group_key from records.role_mappings where brand_id = $1 order by group_key',
    [brandId],
  );
  return rows.map((r) => r.group_key);
}

/** Presses Remove beside `groupKey` on the Provisioning page, posting its hidden value. */
async function removeOnPage(http: ConsoleHttp, brandId: string, groupKey: string) {
  const page = await http.get(`/brands/${brandId}/provisioning`);
  expect(page.body).toContain(`<input type="hidden" name="group_key" value="${groupKey}"/>`);
  return http.post(`/brands/${brandId}/provisioning/mappings/remove`, {
    _csrf: csrfOf(page.body),
    group_key: groupKey,
  });
}

it.each([
  ['a right-to-left override', 'Staff\u202Egnp.exe'],
  ['a first-strong isolate', '\u2068Leads\u2069'],
])('a mapping stored with %s is removed from the page', async (_what, groupKey) => {
  const { brand, owner } = await brandWithOwner(cs);
  // as saved before the rule: straight into records' table
  await cs.stack.db.pool.query(
    `insert into records.role_mappings (brand_id, group_key, role) values ($1, $2, 'admin')`,
    [brand.id, groupKey],
  );
  const http = await signInHttp(cs, owner.email);
  const removed = await removeOnPage(http, brand.id, groupKey);
  expect({ status: removed.status, location: removed.location }).toEqual({
    status: 303,
    location: `/brands/${brand.id}/provisioning?done=unmapped`,
  });
  expect(await mappingsOf(brand.id)).toEqual([]);
});

it('a new mapping with a text-direction control is still refused', async () => {
  const { brand, owner } = await brandWithOwner(cs);
  const http = await signInHttp(cs, owner.email);
  const page = await http.get(`/brands/${brand.id}/provisioning`);
  const saved = await http.post(`/brands/${brand.id}/provisioning/mappings`, {
    _csrf: csrfOf(page.body),
    group_key: 'Staff\u202Egnp.exe',
    role: 'admin',
  });
  expect(saved.status).toBe(400);
  expect(saved.body).toContain('The group must not contain text-direction controls.');
  expect(await mappingsOf(brand.id)).toEqual([]);
});
