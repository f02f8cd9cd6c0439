// A key's allowed networks are written whole (the list replaces the old one), so a change carrying
// the list it was decided on (if_allowed_networks: the console reads the key, compares the owner's
// list with it and with what the page showed, and sends this) is written only onto that list (a
// review of lost updates, 2026-12-01). Without it, the console's read and its write were two calls:
// a change by another owner (or brandctl, or the API) committing between them was replaced
// unseen, a removed network put back. A key has no updated_at, and its last_used_at moves with
// every request: the list itself is the precondition, compared under the key's row lock.
import { Environment } from '@brand/proto/access/v1';
import {
  brandWithOwners,
  createConsoleClient,
  outcomeOf,
  queueBehindRowLock,
  randomHex,
  startStack,
  type ActingMember,
  type ConsoleClient,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
let console_: ConsoleClient;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  console_ = createConsoleClient(stack.records.address);
});
afterAll(async () => {
  console_?.close();
  await stack?.close();
});

const KEPT = '203.0.113.0/24';
const REMOVED = '198.51.100.0/24';
const ADDED = '192.0.2.0/24';

async function twoOwnersOneKey() {
  const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
  const { key } = await t.as.a.access('createKey', {
    brand_id: t.brand.id,
    name: `Sync ${randomHex(3)}`,
    environment: Environment.ENVIRONMENT_LIVE,
    actor_email: '',
    permissions: [],
    allowed_networks: [KEPT, REMOVED],
  });
  return { ...t, key: key! };
}

const setNetworks = (m: ActingMember, keyId: string, networks: string[], read?: string[]) =>
  m.access('setKeyNetworks', {
    key_id: keyId,
    allowed_networks: networks,
    actor_email: '',
    if_allowed_networks: read && { allowed_networks: read },
  });

const networksOf = async (keyId: string) =>
  (
    await stack.db.pool.query<{ allowed_networks: string[] }>(
      'select allowed_networks from api_keys where id = $1',
      [keyId],
    )
  ).rows[0]?.allowed_networks;

it('refuses a change decided on a list changed since (if_allowed_networks)', async () => {
  const t = await twoOwnersOneKey();
  const read = t.key.allowed_networks;
  await setNetworks(t.as.a, t.key.id, [KEPT]);
  await expect(setNetworks(t.as.b, t.key.id, [...read, ADDED], read)).rejects.toMatchObject({
    code: 'precondition_failed',
  });
  expect(await networksOf(t.key.id)).toEqual([KEPT]);
});

it('refuses the second of two changes that read the list before either wrote', async () => {
  const t = await twoOwnersOneKey();
  const read = t.key.allowed_networks;
  const [tightened, added] = await queueBehindRowLock(
    stack.db.pool,
    { sql: 'select 1 from api_keys where id = $1 for update', params: [t.key.id] },
    [
      outcomeOf(() => setNetworks(t.as.a, t.key.id, [KEPT], read)),
      outcomeOf(() => setNetworks(t.as.b, t.key.id, [...read, ADDED], read)),
    ] as const,
  );
  expect(tightened).toEqual({ ok: true });
  expect(added).toEqual({ ok: false, code: 'precondition_failed' });
  expect(await networksOf(t.key.id)).toEqual([KEPT]);
});

it('a change without the precondition is written as before (brandctl, the API)', async () => {
  const t = await twoOwnersOneKey();
  const [first, second] = await queueBehindRowLock(
    stack.db.pool,
    { sql: 'select 1 from api_keys where id = $1 for update', params: [t.key.id] },
    [
      outcomeOf(() => setNetworks(t.as.a, t.key.id, [KEPT])),
      outcomeOf(() => setNetworks(t.as.b, t.key.id, [KEPT, ADDED])),
    ] as const,
  );
  expect([first, second]).toEqual([{ ok: true }, { ok: true }]);
  expect(await networksOf(t.key.id)).toEqual([KEPT, ADDED]);
});
