// Rotating the secret key rotates SSO client secrets too: they are sealed with WEBHOOK_SECRET_KEY
// like receivers' signing secrets, so rotating that key must move them too. `node
// services/records/dist/resealSecrets.js` re-encrypts every SSO client secret under the new key
// (each bound to its brand, as sealed); after it the old key can go. A secret no configured key
// opens is reported and left as it was.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createTestDatabase, REPO_ROOT, type TestDatabase } from '@brand/testkit';
import { SecretBox } from '@brand/shared/secrets';

const RESEAL = path.join(REPO_ROOT, 'services/records/dist/resealSecrets.js');
const newKey = (): string => randomBytes(32).toString('base64');
const oldKey = newKey();
const currentKey = newKey();

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

async function insertConnection(box: SecretBox, brandId: string, secret: string) {
  await db.pool.query(
    `insert into records.brands (id, name, tier, verified) values ($1, $1, 'plus', true)`,
    [brandId],
  );
  const sealed = box.seal(secret, brandId);
  await db.pool.query(
    `insert into records.sso_connections
       (brand_id, issuer, client_id, client_secret_ciphertext, client_secret_key_id, allowed_domains)
     values ($1, 'https://login.example.com', 'console', $2, $3, '{example.com}')`,
    [brandId, sealed.ciphertext, sealed.keyId],
  );
}

async function rowOf(brandId: string) {
  const { rows } = await db.pool.query<{ ciphertext: Buffer; keyId: string }>(
    `select client_secret_ciphertext as "ciphertext", client_secret_key_id as "keyId"
       from records.sso_connections where brand_id = $1`,
    [brandId],
  );
  return rows[0]!;
}

function reseal(key: string, previous: string[]) {
  return spawnSync(process.execPath, [RESEAL], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: db.url,
      WEBHOOK_SECRET_KEY: key,
      WEBHOOK_SECRET_KEYS_PREVIOUS: previous.join(','),
      LOG_LEVEL: 'info',
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

it('rotates: reseal moves every SSO client secret to the new key, the old one can go', async () => {
  await insertConnection(new SecretBox(oldKey), 'br_ssorotA', 'secret-a');
  await insertConnection(new SecretBox(oldKey), 'br_ssorotB', 'secret-b');

  const run = reseal(currentKey, [oldKey]);
  expect([run.status, run.stderr]).toEqual([0, '']);
  expect(run.stdout).toContain('"resealed":2');
  const after = new SecretBox(currentKey);
  for (const [brand, secret] of [
    ['br_ssorotA', 'secret-a'],
    ['br_ssorotB', 'secret-b'],
  ] as const) {
    const row = await rowOf(brand);
    expect(row.keyId).toBe(after.currentKeyId);
    expect(after.open(row, brand)).toBe(secret);
    expect(() => new SecretBox(oldKey).open(row, brand)).toThrow();
  }

  const again = reseal(currentKey, []);
  expect(again.status).toBe(0);
  expect(again.stdout).toContain('"resealed":0');
});

it('reports a secret no configured key opens, leaves it, and exits 1', async () => {
  await insertConnection(new SecretBox(newKey()), 'br_ssorotLost', 'secret-lost');
  const before = await rowOf('br_ssorotLost');
  const run = reseal(currentKey, [oldKey]);
  expect(run.status).toBe(1);
  expect(run.stdout).toContain('br_ssorotLost');
  expect(await rowOf('br_ssorotLost')).toEqual(before);
});
