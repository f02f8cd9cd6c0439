// A key created or changed at the moment the brand's key policy or its owner's standing changes
// (a hostile review of lost updates and races, 2026-12-01). Records read the policy and the
// actor's standing before any lock, so a key created while the policy turned on was stored with
// no allowed networks (and the policy's count of open keys missed it), and a removed owner's key
// creation waiting behind their removal went ahead on the authority they no longer had. Key
// creation, rolls and network changes now share the brand's row (the lock the policy change and
// member changes take for update) and read the policy and the actor again under it. Each test
// queues the two calls behind a lock on the brand's row, in that order.
import { Environment, KeyOverlap, Role } from '@brand/proto/access/v1';
import {
  createConsoleClient,
  queueBehindRowLock,
  randomHex,
  startStack,
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

/** A Plus brand with two owners, A and B, signed in. */
async function twoOwners() {
  const { brand, owner } = await stack.admin.createBrand({
    tier: 'plus',
    ownerEmail: `a-${randomHex(4)}@brand.test`,
  });
  const b = await stack.admin.addMember({
    brandId: brand.id,
    email: `b-${randomHex(4)}@brand.test`,
    role: 'owner',
  });
  const act = async (email: string) =>
    console_.actAs((await console_.signIn(email)).sessionToken, brand.id);
  return { brand, a: owner, b, asA: await act(owner.email), asB: await act(b.email) };
}

type Acting = Awaited<ReturnType<typeof twoOwners>>['asA'];

const newKey = (m: Acting, brandId: string, networks: string[] = []) =>
  m.access('createKey', {
    brand_id: brandId,
    name: `Sync ${randomHex(3)}`,
    environment: Environment.ENVIRONMENT_LIVE,
    actor_email: '',
    permissions: [],
    allowed_networks: networks,
  });

const settled = (call: () => Promise<unknown>) => () =>
  call().then(
    () => ({ ok: true as const }),
    (err: { code?: string }) => ({ ok: false as const, code: err.code }),
  );

const atOnce = (brandId: string, first: () => Promise<unknown>, second: () => Promise<unknown>) =>
  queueBehindRowLock(
    stack.db.pool,
    { sql: 'select 1 from brands where id = $1 for update', params: [brandId] },
    [settled(first), settled(second)] as const,
  );

const openKeys = async (brandId: string) =>
  (
    await stack.db.pool.query<{ name: string }>(
      `select name from api_keys where brand_id = $1 and revoked_at is null
         and cardinality(allowed_networks) = 0`,
      [brandId],
    )
  ).rows;

describe('the key policy and key changes, one at a time', () => {
  it('a key created while the policy turns on is held to it', async () => {
    const t = await twoOwners();
    const [policy, created] = await atOnce(
      t.brand.id,
      () =>
        t.asA.access('setKeyPolicy', {
          brand_id: t.brand.id,
          require_key_networks: true,
          actor_email: '',
        }),
      () => newKey(t.asB, t.brand.id),
    );
    expect(policy).toEqual({ ok: true });
    expect(created).toEqual({ ok: false, code: 'key_networks_required' });
    expect(await openKeys(t.brand.id)).toEqual([]);
  });

  it("a key's networks emptied while the policy turns on are refused", async () => {
    const t = await twoOwners();
    const key = await newKey(t.asB, t.brand.id, ['203.0.113.0/24']);
    const [policy, opened] = await atOnce(
      t.brand.id,
      () =>
        t.asA.access('setKeyPolicy', {
          brand_id: t.brand.id,
          require_key_networks: true,
          actor_email: '',
        }),
      () =>
        t.asB.access('setKeyNetworks', {
          key_id: key.key!.id,
          allowed_networks: [],
          actor_email: '',
        }),
    );
    expect(policy).toEqual({ ok: true });
    expect(opened).toEqual({ ok: false, code: 'key_networks_required' });
    expect(await openKeys(t.brand.id)).toEqual([]);
  });
});

describe("a key change behind its actor's removal", () => {
  it("a removed owner's key creation waiting behind the removal is refused", async () => {
    const t = await twoOwners();
    const [removal, created] = await atOnce(
      t.brand.id,
      () => t.asA.access('removeMember', { member_id: t.b.id }),
      () => newKey(t.asB, t.brand.id, ['203.0.113.0/24']),
    );
    expect(removal).toEqual({ ok: true });
    expect(created).toEqual({ ok: false, code: 'not_found' });
    const keys = await stack.db.pool.query('select id from api_keys where brand_id = $1', [
      t.brand.id,
    ]);
    expect(keys.rows).toEqual([]);
  });

  it("a demoted owner's roll waiting behind the demotion is refused", async () => {
    const t = await twoOwners();
    const key = await newKey(t.asB, t.brand.id, ['203.0.113.0/24']);
    const [demotion, rolled] = await atOnce(
      t.brand.id,
      () => t.asA.access('changeMemberRole', { member_id: t.b.id, role: Role.ROLE_MEMBER }),
      () =>
        t.asB.access('rollKey', {
          key_id: key.key!.id,
          old_key_expires_in: KeyOverlap.KEY_OVERLAP_ONE_HOUR,
          actor_email: '',
        }),
    );
    expect(demotion).toEqual({ ok: true });
    expect(rolled).toEqual({ ok: false, code: 'insufficient_permission' });
    const keys = await stack.db.pool.query('select id from api_keys where brand_id = $1', [
      t.brand.id,
    ]);
    expect(keys.rows).toHaveLength(1);
  });
});
