// A brand's live API keys are bounded (access/keyLimit.ts, MAX_LIVE_KEYS): an owner's session or
// a script run wild could mint keys without end before. Revoked and expired keys do not count; a
// roll whose old key works on through an overlap counts it, one whose old key ends now does not.
import { Environment, KeyOverlap } from '@brand/proto/access/v1';
import {
  brandWithOwners,
  createConsoleClient,
  randomHex,
  startStack,
  type ActingMember,
  type ConsoleClient,
  type Stack,
} from '@brand/testkit';

/** As services/records/src/access/keyLimit.ts; restated so a change of it shows here. */
const MAX_LIVE_KEYS = 100;

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

const newKey = (m: ActingMember, brandId: string) =>
  m.access('createKey', {
    brand_id: brandId,
    name: `Sync ${randomHex(3)}`,
    environment: Environment.ENVIRONMENT_LIVE,
    actor_email: '',
    permissions: [],
    allowed_networks: [],
  });

const liveKeys = async (brandId: string) =>
  (
    await stack.db.pool.query<{ n: number }>(
      `select count(*)::int as n from api_keys where brand_id = $1 and revoked_at is null
         and (expires_at is null or expires_at > now())`,
      [brandId],
    )
  ).rows[0]!.n;

/** A brand with `live` live keys, and one revoked and one expired before them. */
async function brandWithKeys(live: number) {
  const t = await brandWithOwners(stack.admin, console_, ['a'], ['a']);
  const revoked = await newKey(t.as.a, t.brand.id);
  await t.as.a.access('revokeKey', { key_id: revoked.key!.id, actor_email: '' });
  const expired = await newKey(t.as.a, t.brand.id);
  await stack.db.pool.query(`update api_keys set expires_at = now() where id = $1`, [
    expired.key!.id,
  ]);
  const keys = [];
  for (let i = 0; i < live; i++) keys.push(await newKey(t.as.a, t.brand.id));
  return { ...t, keys };
}

it('refuses a key beyond the limit with key_limit, counting live keys only', async () => {
  const t = await brandWithKeys(MAX_LIVE_KEYS - 1);
  expect(await liveKeys(t.brand.id)).toBe(MAX_LIVE_KEYS - 1);
  await newKey(t.as.a, t.brand.id);
  const refused = await newKey(t.as.a, t.brand.id).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(refused).toMatchObject({ code: 'key_limit' });
  expect(refused?.message).toContain(`${MAX_LIVE_KEYS} live API keys`);
  expect(await liveKeys(t.brand.id)).toBe(MAX_LIVE_KEYS);

  // a key revoked makes room for one more
  await t.as.a.access('revokeKey', { key_id: t.keys[0]!.key!.id, actor_email: '' });
  await newKey(t.as.a, t.brand.id);
  expect(await liveKeys(t.brand.id)).toBe(MAX_LIVE_KEYS);
}, 120_000);

it('at the limit, a roll ending the old key now goes ahead and one with an overlap is refused', async () => {
  const t = await brandWithKeys(MAX_LIVE_KEYS);
  const roll = (overlap: KeyOverlap) =>
    t.as.a.access('rollKey', {
      key_id: t.keys[0]!.key!.id,
      old_key_expires_in: overlap,
      actor_email: '',
    });
  await expect(roll(KeyOverlap.KEY_OVERLAP_ONE_HOUR)).rejects.toMatchObject({ code: 'key_limit' });
  const rolled = await roll(KeyOverlap.KEY_OVERLAP_NONE);
  expect(rolled.key!.id).not.toBe(t.keys[0]!.key!.id);
  expect(await liveKeys(t.brand.id)).toBe(MAX_LIVE_KEYS);
}, 120_000);

it('creations at once near the limit stop exactly at it', async () => {
  const t = await brandWithKeys(MAX_LIVE_KEYS - 3);
  const outcomes = await Promise.allSettled(
    Array.from({ length: 6 }, () => newKey(t.as.a, t.brand.id)),
  );
  expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
  for (const o of outcomes.filter((o) => o.status === 'rejected')) {
    expect(o).toMatchObject({ reason: { code: 'key_limit' } });
  }
  expect(await liveKeys(t.brand.id)).toBe(MAX_LIVE_KEYS);
}, 120_000);
