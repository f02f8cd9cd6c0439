// A single sign-on save writes the whole connection (issuer, client id, domains, enabled), so it
// is written only onto the connection it was decided on (a hostile review of lost updates,
// 2026-12-01). Unchecked, a save read the connection, asked the issuer for its discovery
// document, and wrote back over whatever another owner had saved meanwhile: their "disable single
// sign-on" was undone by a domain edit. Now the row is compared under its lock with the one the
// save read (and with the caller's if_updated_at, the console's read), and a connection changed
// meanwhile is precondition_failed.
import {
  createConsoleClient,
  outcomeOf,
  queueBehindRowLock,
  randomHex,
  startHostileIssuer,
  startStack,
  TEST_ADMIN_TOKEN,
  twoChangesAtOnce,
  type ConsoleClient,
  type HostileIssuer,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
let admin: ConsoleClient;
let issuer: HostileIssuer;

beforeAll(async () => {
  // the issuer below is on this machine: the local-only setting admits it
  stack = await startStack({
    gateways: 0,
    recordsEnv: { WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true' },
  });
  admin = createConsoleClient(stack.records.address, TEST_ADMIN_TOKEN);
  issuer = await startHostileIssuer();
  issuer.serve({ document: issuer.benignDocument() });
}, 120_000);
afterAll(async () => {
  admin?.close();
  await issuer?.close();
  await stack?.close();
});

async function connected() {
  const made = await stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner@save-${randomHex(4)}.test`,
  });
  const brandId = made.brand.id;
  const domain = `${brandId.slice(3).toLowerCase()}.example.com`;
  const { connection } = await save(brandId, { allowed_domains: [domain], client_secret: 's3' });
  return { brandId, domain, connection: connection! };
}

const save = (
  brandId: string,
  change: { allowed_domains: string[]; enabled?: boolean; client_secret?: string },
  ifUpdatedAt = '',
) =>
  admin.sso('setSsoConnection', {
    brand_id: brandId,
    issuer: issuer.origin,
    client_id: 'console',
    client_secret: change.client_secret ?? '',
    allowed_domains: change.allowed_domains,
    enabled: change.enabled ?? true,
    session_token: '',
    if_updated_at: ifUpdatedAt,
  });

const stored = async (brandId: string) =>
  (
    await stack.db.pool.query<{ allowed_domains: string[]; enabled: boolean }>(
      'select allowed_domains, enabled from sso_connections where brand_id = $1',
      [brandId],
    )
  ).rows[0];

it('refuses a save decided on a connection changed since (if_updated_at)', async () => {
  const t = await connected();
  await save(t.brandId, { allowed_domains: [t.domain], enabled: false });
  const stale = save(
    t.brandId,
    { allowed_domains: [t.domain, `more.${t.domain}`] },
    t.connection.updated_at,
  );
  await expect(stale).rejects.toMatchObject({ code: 'precondition_failed' });
  expect(await stored(t.brandId)).toEqual({ allowed_domains: [t.domain], enabled: false });
});

it('refuses the second of two saves that read the connection before either wrote', async () => {
  const t = await connected();
  const [disable, edit] = await queueBehindRowLock(
    stack.db.pool,
    { sql: 'select 1 from sso_connections where brand_id = $1 for update', params: [t.brandId] },
    [
      outcomeOf(() => save(t.brandId, { allowed_domains: [t.domain], enabled: false })),
      outcomeOf(() => save(t.brandId, { allowed_domains: [t.domain, `more.${t.domain}`] })),
    ] as const,
  );
  expect(disable).toEqual({ ok: true });
  expect(edit).toEqual({ ok: false, code: 'precondition_failed' });
  expect(await stored(t.brandId)).toEqual({ allowed_domains: [t.domain], enabled: false });
});

it('refuses the second of two first connections made at once', async () => {
  const made = await stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner@first-${randomHex(4)}.test`,
  });
  const brandId = made.brand.id;
  const domain = `${brandId.slice(3).toLowerCase()}.example.com`;
  const [first, second] = await twoChangesAtOnce(
    stack.db.pool,
    brandId,
    () => save(brandId, { allowed_domains: [domain], client_secret: 's1' }),
    () =>
      save(brandId, {
        allowed_domains: [`other.${domain}`],
        enabled: false,
        client_secret: 's2',
      }),
  );
  expect([first, second]).toEqual([{ ok: true }, { ok: false, code: 'precondition_failed' }]);
  expect(await stored(brandId)).toEqual({ allowed_domains: [domain], enabled: true });
});
