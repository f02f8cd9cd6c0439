// A provisioning change waiting behind its actor's demotion or removal (a review of races inside
// one brand, 2026-12-01). setProvisioningSettings and setRoleMapping read the actor's standing
// before the brand's lock, so an owner demoted (or removed) by another owner while their change
// queued behind that change still turned just-in-time membership on, or mapped a group to owner,
// on the authority they no longer had: the change key creation and member changes refuse since
// b1f9c5ab. Each test queues the two calls behind a lock on the brand's row, in that order.
import { Role } from '@brand/proto/access/v1';
import { ProvisioningServiceClient } from '@brand/proto/access/v1/provisioning';
import { connectClient, createCaller } from '@brand/shared/grpc';
import {
  brandWithOwners,
  createConsoleClient,
  startStack,
  TEST_CONSOLE_TOKEN,
  twoChangesAtOnce,
  type ActingMember,
  type ConsoleClient,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
let console_: ConsoleClient;
let client: ProvisioningServiceClient;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  console_ = createConsoleClient(stack.records.address);
  client = connectClient(ProvisioningServiceClient, stack.records.address);
});
afterAll(async () => {
  client?.close();
  console_?.close();
  await stack?.close();
});

/** ProvisioningService as the console calls it for `m`. */
const provisioningAs = (m: ActingMember) =>
  createCaller(client, { deadlineMs: 10_000, token: TEST_CONSOLE_TOKEN, metadata: m.metadata });

const settingsOf = async (brandId: string) =>
  (
    await stack.db.pool.query<{ jit_enabled: boolean }>(
      'select jit_enabled from brands where id = $1',
      [brandId],
    )
  ).rows[0];

const mappingsOf = async (brandId: string) =>
  (
    await stack.db.pool.query<{ group_key: string }>(
      'select group_key from role_mappings where brand_id = $1',
      [brandId],
    )
  ).rows;

it("a demoted owner's settings change waiting behind the demotion is refused", async () => {
  const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
  const [demotion, saved] = await twoChangesAtOnce(
    stack.db.pool,
    t.brand.id,
    () => t.as.a.access('changeMemberRole', { member_id: t.owner.b.id, role: Role.ROLE_MEMBER }),
    () =>
      provisioningAs(t.as.b)('setProvisioningSettings', {
        brand_id: t.brand.id,
        settings: {
          jit_enabled: true,
          jit_groups_claim: 'groups',
          revoke_keys_on_deprovision: false,
        },
      }),
  );
  expect(demotion).toEqual({ ok: true });
  expect(saved).toEqual({ ok: false, code: 'insufficient_permission' });
  expect(await settingsOf(t.brand.id)).toEqual({ jit_enabled: false });
});

it("a removed owner's group mapping waiting behind the removal is refused", async () => {
  const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
  const [removal, mapped] = await twoChangesAtOnce(
    stack.db.pool,
    t.brand.id,
    () => t.as.a.access('removeMember', { member_id: t.owner.b.id }),
    () =>
      provisioningAs(t.as.b)('setRoleMapping', {
        brand_id: t.brand.id,
        group_key: 'b-admins',
        role: Role.ROLE_OWNER,
      }),
  );
  expect(removal).toEqual({ ok: true });
  expect(mapped).toEqual({ ok: false, code: 'not_found' });
  expect(await mappingsOf(t.brand.id)).toEqual([]);
});

it("a demoted owner's token revocation waiting behind the demotion is refused", async () => {
  const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
  const { token } = await provisioningAs(t.as.a)('createScimToken', {
    brand_id: t.brand.id,
    name: 'Okta',
  });
  const [demotion, revoked] = await twoChangesAtOnce(
    stack.db.pool,
    t.brand.id,
    () => t.as.a.access('changeMemberRole', { member_id: t.owner.b.id, role: Role.ROLE_ADMIN }),
    () => provisioningAs(t.as.b)('revokeScimToken', { token_id: token!.id }),
  );
  expect(demotion).toEqual({ ok: true });
  expect(revoked).toEqual({ ok: false, code: 'insufficient_permission' });
  const live = await stack.db.pool.query(
    'select id from scim_tokens where id = $1 and revoked_at is null',
    [token!.id],
  );
  expect(live.rows).toHaveLength(1);
});

it("a demoted owner's token creation or rotation waiting behind the demotion is refused", async () => {
  // Refused before too (7d940206), but as not_found; now as every other owner-only change: a
  // demoted actor is insufficient_permission, a removed one not_found.
  const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
  const { token } = await provisioningAs(t.as.a)('createScimToken', {
    brand_id: t.brand.id,
    name: 'Okta',
  });
  const [demotion, made] = await twoChangesAtOnce(
    stack.db.pool,
    t.brand.id,
    () => t.as.a.access('changeMemberRole', { member_id: t.owner.b.id, role: Role.ROLE_ADMIN }),
    () => provisioningAs(t.as.b)('createScimToken', { brand_id: t.brand.id, name: 'Entra' }),
  );
  expect(demotion).toEqual({ ok: true });
  expect(made).toEqual({ ok: false, code: 'insufficient_permission' });

  await t.as.a.access('changeMemberRole', { member_id: t.owner.b.id, role: Role.ROLE_OWNER });
  const [again, rotated] = await twoChangesAtOnce(
    stack.db.pool,
    t.brand.id,
    () => t.as.a.access('changeMemberRole', { member_id: t.owner.b.id, role: Role.ROLE_MEMBER }),
    () =>
      provisioningAs(t.as.b)('rotateScimToken', {
        token_id: token!.id,
        old_token_expires_in: 'now',
      }),
  );
  expect(again).toEqual({ ok: true });
  expect(rotated).toEqual({ ok: false, code: 'insufficient_permission' });
  const tokens = await stack.db.pool.query<{ name: string; live: boolean }>(
    'select name, revoked_at is null and expires_at is null as live from scim_tokens where brand_id = $1',
    [t.brand.id],
  );
  expect(tokens.rows).toEqual([{ name: 'Okta', live: true }]);
});

it('an owner still in standing changes both as before', async () => {
  const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['b']);
  const b = provisioningAs(t.as.b);
  await b('setRoleMapping', { brand_id: t.brand.id, group_key: 'b-admins', role: Role.ROLE_OWNER });
  await b('setProvisioningSettings', {
    brand_id: t.brand.id,
    settings: { jit_enabled: true, jit_groups_claim: 'groups', revoke_keys_on_deprovision: false },
  });
  expect(await mappingsOf(t.brand.id)).toEqual([{ group_key: 'b-admins' }]);
  expect(await settingsOf(t.brand.id)).toEqual({ jit_enabled: true });
});
