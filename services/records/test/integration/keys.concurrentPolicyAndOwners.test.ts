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
  brandWithOwners,
  randomHex,
  startStack,
  twoChangesAtOnce,
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

const newKey = (m: ActingMember, brandId: string, networks: string[] = []) =>
  m.access('createKey', {
    brand_id: brandId,
    name: `Sync ${randomHex(3)}`,
    environment: Environment.ENVIRONMENT_LIVE,
    actor_email: '',
    permissions: [],
    allowed_networks: networks,
  });

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
    const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
    const [policy, created] = await twoChangesAtOnce(
      stack.db.pool,
      t.brand.id,
      () =>
        t.as.a.access('setKeyPolicy', {
          brand_id: t.brand.id,
          require_key_networks: true,
          actor_email: '',
        }),
      () => newKey(t.as.b, t.brand.id),
    );
    expect(policy).toEqual({ ok: true });
    expect(created).toEqual({ ok: false, code: 'key_networks_required' });
    expect(await openKeys(t.brand.id)).toEqual([]);
  });

  it("a key's networks emptied while the policy turns on are refused", async () => {
    const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
    const key = await newKey(t.as.b, t.brand.id, ['203.0.113.0/24']);
    const [policy, opened] = await twoChangesAtOnce(
      stack.db.pool,
      t.brand.id,
      () =>
        t.as.a.access('setKeyPolicy', {
          brand_id: t.brand.id,
          require_key_networks: true,
          actor_email: '',
        }),
      () =>
        t.as.b.access('setKeyNetworks', {
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
    const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
    const [removal, created] = await twoChangesAtOnce(
      stack.db.pool,
      t.brand.id,
      () => t.as.a.access('removeMember', { member_id: t.owner.b.id }),
      () => newKey(t.as.b, t.brand.id, ['203.0.113.0/24']),
    );
    expect(removal).toEqual({ ok: true });
    expect(created).toEqual({ ok: false, code: 'not_found' });
    const keys = await stack.db.pool.query('select id from api_keys where brand_id = $1', [
      t.brand.id,
    ]);
    expect(keys.rows).toEqual([]);
  });

  it("a demoted owner's roll waiting behind the demotion is refused", async () => {
    const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
    const key = await newKey(t.as.b, t.brand.id, ['203.0.113.0/24']);
    const [demotion, rolled] = await twoChangesAtOnce(
      stack.db.pool,
      t.brand.id,
      () => t.as.a.access('changeMemberRole', { member_id: t.owner.b.id, role: Role.ROLE_MEMBER }),
      () =>
        t.as.b.access('rollKey', {
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
