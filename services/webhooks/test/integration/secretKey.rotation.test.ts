// The key that encrypts receivers' signing secrets at rest can be rotated. Secrets sealed under the
// old key stay readable while both keys are configured (new first); `node
// services/webhooks/dist/resealSecrets.js` re-encrypts every stored secret, pending ones of a
// rotation included, under the new key; after that the old key can be removed and every secret
// still opens. A secret no configured key opens is reported and left as it was.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createTestDatabase, REPO_ROOT, type TestDatabase } from '@brand/testkit';
import { SecretBox } from '@brand/shared/secrets';

const RESEAL = path.join(REPO_ROOT, 'services/webhooks/dist/resealSecrets.js');
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

interface Row {
  id: string;
  secret_ciphertext: Buffer;
  secret_key_id: string;
  pending_secret_ciphertext: Buffer | null;
  pending_secret_key_id: string | null;
}

async function insertReceiver(box: SecretBox, id: string, secret: string, pending?: string) {
  const sealed = box.seal(secret, id);
  const next = pending === undefined ? undefined : box.seal(pending, id);
  await db.pool.query(
    `insert into webhooks.receivers
       (id, brand_id, url, label, events, secret_ciphertext, secret_key_id, created_by,
        pending_secret_ciphertext, pending_secret_key_id, rotation_created_at)
     values ($1, 'br_keyrot', 'https://hooks.example/in', 'r', '{payout.paid}', $2, $3, 'operator',
             $4, $5, case when $4::bytea is null then null else now() end)`,
    [id, sealed.ciphertext, sealed.keyId, next?.ciphertext ?? null, next?.keyId ?? null],
  );
}

const rowOf = async (id: string): Promise<Row> =>
  (await db.pool.query<Row>(`select * from webhooks.receivers where id = $1`, [id])).rows[0]!;

const openAll = (box: SecretBox, row: Row) => ({
  secret: box.open({ ciphertext: row.secret_ciphertext, keyId: row.secret_key_id }, row.id),
  pending:
    row.pending_secret_ciphertext && row.pending_secret_key_id
      ? box.open(
          { ciphertext: row.pending_secret_ciphertext, keyId: row.pending_secret_key_id },
          row.id,
        )
      : undefined,
});

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

it('rotates: both keys read, reseal moves every secret to the new key, the old one can go', async () => {
  const before = new SecretBox(oldKey);
  await insertReceiver(before, 'rcv_keyrot_a', 'whsec_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa');
  await insertReceiver(
    before,
    'rcv_keyrot_b',
    'whsec_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    'whsec_nextnextnextnextnextnextnext',
  );

  // during the rotation: the new key first, the old still listed; both kinds of row open
  const during = new SecretBox(currentKey, [oldKey]);
  expect(openAll(during, await rowOf('rcv_keyrot_b'))).toEqual({
    secret: 'whsec_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    pending: 'whsec_nextnextnextnextnextnextnext',
  });
  expect(during.seal('whsec_x', 'rcv_x').keyId).toBe(during.currentKeyId);

  const run = reseal(currentKey, [oldKey]);
  expect([run.status, run.stderr]).toEqual([0, '']);
  expect(run.stdout).toContain('"resealed":2');

  // the old key removed: every secret still opens, and only under the new key
  const after = new SecretBox(currentKey);
  for (const id of ['rcv_keyrot_a', 'rcv_keyrot_b']) {
    const row = await rowOf(id);
    expect(row.secret_key_id).toBe(after.currentKeyId);
    expect(() => openAll(new SecretBox(oldKey), row)).toThrow();
  }
  expect(openAll(after, await rowOf('rcv_keyrot_a'))).toEqual({
    secret: 'whsec_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    pending: undefined,
  });
  expect(openAll(after, await rowOf('rcv_keyrot_b'))).toEqual({
    secret: 'whsec_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    pending: 'whsec_nextnextnextnextnextnextnext',
  });

  // run again: nothing left to do
  const again = reseal(currentKey, []);
  expect(again.status).toBe(0);
  expect(again.stdout).toContain('"resealed":0');
});

it('reports a secret no configured key opens, leaves it, and exits 1', async () => {
  await insertReceiver(
    new SecretBox(newKey()),
    'rcv_keyrot_lost',
    'whsec_lostlostlostlostlostlostlost',
  );
  const before = await rowOf('rcv_keyrot_lost');
  const run = reseal(currentKey, [oldKey]);
  expect(run.status).toBe(1);
  expect(run.stdout).toContain('rcv_keyrot_lost');
  expect(await rowOf('rcv_keyrot_lost')).toEqual(before);
});
