import { hashApiKey } from '@brand/shared/keys';
import { makeBrandWithKey, startStack, type Stack } from '@brand/testkit';

/**
 * An operator may name who acted (brandctl's --actor) on the admin RPCs that record one. The
 * name goes into the brand's activity, so it must be an owner of the key's brand, as for
 * CreateKey and RollKey: an outside probe (2026-11-30) revoked brand A's key naming brand B's
 * owner, and A's activity recorded B's owner as the revoker.
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
});
afterAll(async () => {
  await stack?.close();
});

const activityOf = async (brandId: string) =>
  (
    await stack.admin.access('listActivity', {
      brand_id: brandId,
      page_size: 50,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    })
  ).entries;

const revoke = (keyId: string, actorEmail: string) =>
  stack.admin.access('revokeKey', { key_id: keyId, actor_email: actorEmail });
const expireNow = (keyId: string, actorEmail: string) =>
  stack.admin.access('setKeyExpiry', {
    key_id: keyId,
    now: true,
    expires_at: '',
    actor_email: actorEmail,
  });
const setNetworks = (keyId: string, actorEmail: string) =>
  stack.admin.access('setKeyNetworks', {
    key_id: keyId,
    allowed_networks: ['203.0.113.0/24'],
    actor_email: actorEmail,
  });
const setPolicy = (brandId: string, actorEmail: string) =>
  stack.admin.access('setKeyPolicy', {
    brand_id: brandId,
    require_key_networks: true,
    actor_email: actorEmail,
  });

type Call = (a: { brandId: string; keyId: string }, actorEmail: string) => Promise<unknown>;
const calls: [string, Call][] = [
  ['RevokeKey', (a, e) => revoke(a.keyId, e)],
  ['SetKeyExpiry', (a, e) => expireNow(a.keyId, e)],
  ['SetKeyNetworks', (a, e) => setNetworks(a.keyId, e)],
  ['SetKeyPolicy', (a, e) => setPolicy(a.brandId, e)],
];

describe('the actor an operator names', () => {
  it.each(calls)('%s refuses the owner of another brand and records nothing', async (_, call) => {
    const a = await makeBrandWithKey(stack.admin);
    const b = await makeBrandWithKey(stack.admin);
    const before = await activityOf(a.brand.id);
    await expect(
      call({ brandId: a.brand.id, keyId: a.key.id }, b.owner.email),
    ).rejects.toMatchObject({ code: 'insufficient_permission' });
    expect(await activityOf(a.brand.id)).toEqual(before);
    // the key is untouched: it still authenticates
    await expect(stack.admin.authenticateKey(hashApiKey(a.secret), 'live')).resolves.toBeDefined();
  });

  it.each(calls)('%s refuses a member of the brand who is not an owner', async (_, call) => {
    const a = await makeBrandWithKey(stack.admin);
    const admin = await stack.admin.addMember({
      brandId: a.brand.id,
      email: `admin-${a.brand.id}@records.test`,
      role: 'admin',
    });
    await expect(call({ brandId: a.brand.id, keyId: a.key.id }, admin.email)).rejects.toMatchObject(
      { code: 'insufficient_permission' },
    );
  });

  it.each(calls)('%s records the brand owner named (any case) as the actor', async (_, call) => {
    const a = await makeBrandWithKey(stack.admin);
    await call({ brandId: a.brand.id, keyId: a.key.id }, a.owner.email.toUpperCase());
    const [latest] = await activityOf(a.brand.id);
    expect(latest).toMatchObject({ actor_email: a.owner.email, actor_member_id: a.owner.id });
  });

  it.each(calls)('%s still records "operator" when no actor is named', async (_, call) => {
    const a = await makeBrandWithKey(stack.admin);
    await call({ brandId: a.brand.id, keyId: a.key.id }, '');
    const [latest] = await activityOf(a.brand.id);
    expect(latest).toMatchObject({ actor_email: 'operator', actor_member_id: '' });
  });
});
