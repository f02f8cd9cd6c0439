// A secret read at start given as a file (`<NAME>_FILE`, packages/shared/src/config/
// startSecretFiles.ts), on the real plans process: started with INTERNAL_TOKEN_FILE naming a
// file (as a mounted Secret or a compose secret holds it, with its trailing newline) and no
// INTERNAL_TOKEN, it accepts the file's token from its caller and refuses the one it was not
// given; started with the token both ways, it stops at start naming the variable, not the value.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createPlansClient,
  createTestDatabase,
  planBody,
  planInputMessage,
  REPO_ROOT,
  startPlans,
  TEST_ADMIN_TOKEN,
  TEST_INTERNAL_TOKEN,
  type PlansProcess,
  type TestDatabase,
} from '@brand/testkit';

const dir = mkdtempSync(path.join(tmpdir(), 'plans-secret-files-'));
const token = randomBytes(32).toString('hex');
const tokenFile = path.join(dir, 'INTERNAL_TOKEN');
let db: TestDatabase;
let plans: PlansProcess | undefined;

beforeAll(async () => {
  writeFileSync(tokenFile, `${token}\n`);
  db = await createTestDatabase();
});
afterAll(async () => {
  await plans?.stop();
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const codeOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (err: { code?: string }) => err.code ?? 'error',
  );

it("takes INTERNAL_TOKEN from the file INTERNAL_TOKEN_FILE names: the file's token is accepted, no other", async () => {
  plans = await startPlans({
    databaseUrl: db.url,
    env: { INTERNAL_TOKEN: '', INTERNAL_TOKEN_FILE: tokenFile },
  });
  const prepare = (callerToken: string) => {
    const client = createPlansClient(plans!.address, callerToken);
    return codeOf(
      client.plans('preparePlan', {
        brand_id: `br_secretfile${Date.now()}`,
        input: planInputMessage(planBody()),
      }),
    ).finally(() => client.close());
  };
  await expect(prepare(token)).resolves.toBe('ok');
  // the token the test kit would have given it, had the file not: not this process's
  await expect(prepare(TEST_INTERNAL_TOKEN)).resolves.toBe('unauthenticated');
}, 60_000);

it('stops at start when the token is given both ways, naming the variable and not the value', () => {
  const result = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, 'services/plans/dist/main.js')],
    {
      env: {
        PATH: process.env.PATH ?? '',
        GRPC_PORT: '0',
        METRICS_PORT: '0',
        DATABASE_URL: db.url,
        INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
        INTERNAL_TOKEN_FILE: tokenFile,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      },
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  expect(result.status).toBe(1);
  const said = `${result.stdout}${result.stderr}`;
  expect(said).toContain(
    'INTERNAL_TOKEN_FILE: set INTERNAL_TOKEN or INTERNAL_TOKEN_FILE, not both',
  );
  expect(said).not.toContain(token);
  expect(said).not.toContain(TEST_INTERNAL_TOKEN);
}, 60_000);
