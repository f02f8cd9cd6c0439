// A brand's provisioning settings (just in time, its groups claim, revoke a deprovisioned person's
// keys) are written whole, so a change carrying the settings it was decided on (if_settings: the
// console reads them, keeps what the owner did not change, and sends this) is written only onto
// those settings (a review of lost updates, 2026-12-01). Without it, the console's read and its
// write were two calls: "revoke the keys" turned on by another owner (or brandctl, or the API)
// between them was turned off again unseen. The settings are columns of the brand's row, which
// has no updated_at (and many other writes): the settings themselves are the precondition,
// compared under the brand's row lock.
import {
  ProvisioningServiceClient,
  type ProvisioningSettings,
} from '@brand/proto/access/v1/provisioning';
import { connectClient, createCaller } from '@brand/shared/grpc';
import {
  randomHex,
  startStack,
  TEST_ADMIN_TOKEN,
  twoChangesAtOnce,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
let client: ProvisioningServiceClient;
let provisioning: ReturnType<typeof createCaller<ProvisioningServiceClient>>;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  client = connectClient(ProvisioningServiceClient, stack.records.address);
  provisioning = createCaller(client, { deadlineMs: 10_000, token: TEST_ADMIN_TOKEN });
});
afterAll(async () => {
  client?.close();
  await stack?.close();
});

const DEFAULTS: ProvisioningSettings = {
  jit_enabled: false,
  jit_groups_claim: 'groups',
  revoke_keys_on_deprovision: false,
};

async function brand(): Promise<string> {
  const made = await stack.admin.createBrand({
    tier: 'plus',
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  return made.brand.id;
}

const save = (brandId: string, settings: ProvisioningSettings, read?: ProvisioningSettings) =>
  provisioning('setProvisioningSettings', { brand_id: brandId, settings, if_settings: read });

const stored = async (brandId: string) =>
  (await provisioning('getProvisioning', { brand_id: brandId })).settings;

it('refuses a change decided on settings changed since (if_settings)', async () => {
  const brandId = await brand();
  const read = await stored(brandId);
  expect(read).toEqual(DEFAULTS);
  await save(brandId, { ...DEFAULTS, revoke_keys_on_deprovision: true });
  await expect(
    save(brandId, { ...DEFAULTS, jit_groups_claim: 'roles' }, read),
  ).rejects.toMatchObject({ code: 'precondition_failed' });
  expect(await stored(brandId)).toEqual({ ...DEFAULTS, revoke_keys_on_deprovision: true });
});

it('refuses the second of two changes that read the settings before either wrote', async () => {
  const brandId = await brand();
  const read = (await stored(brandId))!;
  const [revoke, claim] = await twoChangesAtOnce(
    stack.db.pool,
    brandId,
    () => save(brandId, { ...read, revoke_keys_on_deprovision: true }, read),
    () => save(brandId, { ...read, jit_groups_claim: 'roles' }, read),
  );
  expect(revoke).toEqual({ ok: true });
  expect(claim).toEqual({ ok: false, code: 'precondition_failed' });
  expect(await stored(brandId)).toEqual({ ...DEFAULTS, revoke_keys_on_deprovision: true });
});

it('a change without the precondition is written as before (brandctl, the API)', async () => {
  const brandId = await brand();
  const [first, second] = await twoChangesAtOnce(
    stack.db.pool,
    brandId,
    () => save(brandId, { ...DEFAULTS, revoke_keys_on_deprovision: true }),
    () => save(brandId, { ...DEFAULTS, jit_groups_claim: 'roles' }),
  );
  expect([first, second]).toEqual([{ ok: true }, { ok: true }]);
  expect(await stored(brandId)).toEqual({ ...DEFAULTS, jit_groups_claim: 'roles' });
});
