// Issue 35: the local stack listens on loopback only. The processes `npm run up` starts are
// started here by the same shell functions (scripts/lib/localStack.sh, under
// scripts/lib/supervise.sh, with config/local.env loaded as up loads it; only ports, data and
// secrets are the test's own), plus a broker started by scripts/kafka.sh as up starts one.
// Then every TCP socket each of those processes listens on must be on 127.0.0.1: a listener
// on 0.0.0.0 or :: (any address) fails the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createTestCa,
  createTestDatabase,
  freePort,
  freeRedisPrefixKeys,
  listeningSockets,
  REPO_ROOT,
  startOwnKafka,
  TEST_ADMIN_TOKEN,
  TEST_ASSERTION_KEYS,
  TEST_CONSOLE_TOKEN,
  TEST_CURSOR_SECRET,
  TEST_INTERNAL_TOKEN,
  TEST_WEBHOOK_SECRET_KEY,
  uniqueRedisPrefix,
  waitFor,
  type OwnKafka,
  type TestCa,
  type TestDatabase,
} from '@brand/testkit';

/** What up.sh does between loading its settings and printing the banner, minus the seeding. */
const DRIVER = `
set -Eeuo pipefail
. scripts/lib/common.sh
. scripts/lib/supervise.sh
. scripts/lib/localStack.sh
load_env_file config/local.env
trap 'supervise_stop_all; exit 0' INT TERM
start_local_services
start_example_receiver
start_dev_idp owner@loopback.test
echo "local stack started"
supervise_forever
`;

/** The processes up starts, by the name supervise gives them. */
const PROCESSES = [
  'records',
  'plans',
  'gateway',
  'webhooks',
  'mailbox',
  'console',
  'example-receiver',
  'dev-idp',
];

let kafka: OwnKafka;
let db: TestDatabase;
let ca: TestCa;
let workDir: string;
let up: ChildProcess | undefined;
let output = '';
const redisKeyPrefix = uniqueRedisPrefix();

beforeAll(async () => {
  kafka = await startOwnKafka();
  db = await createTestDatabase();
  ca = createTestCa();
  workDir = mkdtempSync(path.join(tmpdir(), 'loopback-'));
  const [records, plans, webhooks, gateway, consolePort, mailbox, receiver, idp] =
    await Promise.all(Array.from({ length: 8 }, () => freePort()));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LOG_DIR: workDir,
    SUPERVISE_READY_TIMEOUT: '90',
    // The test's own data, brokers, ports and secrets; config/local.env fills in the rest.
    DATABASE_URL: db.url,
    REDIS_KEY_PREFIX: redisKeyPrefix,
    KAFKA_BROKERS: kafka.brokers.join(','),
    RECORDS_GRPC_PORT: String(records),
    RECORDS_GRPC_ADDR: `127.0.0.1:${records}`,
    PLANS_GRPC_PORT: String(plans),
    PLANS_GRPC_ADDR: `127.0.0.1:${plans}`,
    WEBHOOKS_GRPC_PORT: String(webhooks),
    WEBHOOKS_GRPC_ADDR: `127.0.0.1:${webhooks}`,
    WEBHOOKS_METRICS_PORT: '0',
    GATEWAY_PORT: String(gateway),
    GATEWAY_METRICS_PORT: '0',
    // Every service's operations listener on a port the OS chooses (up leaves the defaults).
    METRICS_PORT: '0',
    CONSOLE_PORT: String(consolePort),
    CONSOLE_METRICS_PORT: '0',
    CONSOLE_PUBLIC_URL: `http://127.0.0.1:${consolePort}`,
    MAILBOX_PORT: String(mailbox),
    MAILBOX_DIR: path.join(workDir, 'mailbox'),
    SMTP_URL: `smtp://127.0.0.1:${mailbox}`,
    EXAMPLE_RECEIVER_PORT: String(receiver),
    EXAMPLE_RECEIVER_SECRET: 'whsec_loopbackTestSecret0123456789abcd',
    LOCAL_CA_DIR: ca.dir,
    DEV_IDP_PORT: String(idp),
    DEV_IDP_DIR: path.join(workDir, 'dev-idp'),
    DEV_IDP_CLIENT_SECRET: 'loopback-test-client-secret',
    DEV_IDP_PASSWORD: 'loopback-test-password',
    WEBHOOK_EXTRA_CA_FILE: ca.caFile,
    INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    CONSOLE_TOKEN: TEST_CONSOLE_TOKEN,
    CURSOR_SECRET: TEST_CURSOR_SECRET,
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
    CONSOLE_ASSERTION_PRIVATE_KEY: TEST_ASSERTION_KEYS.privateKeyPem,
    CONSOLE_ASSERTION_PUBLIC_KEY: TEST_ASSERTION_KEYS.publicKeyPem,
  };
  up = spawn('bash', ['-c', DRIVER], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  up.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  up.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => up!.once('exit', () => resolve()));
  await Promise.race([
    waitFor(() => output.includes('local stack started'), {
      timeoutMs: 240_000,
      what: 'the local stack to start',
    }),
    exited.then(() => {
      throw new Error(`the driver exited before the stack started:\n${output}`);
    }),
  ]);
}, 300_000);

afterAll(async () => {
  if (up && up.exitCode === null) {
    const exited = new Promise((resolve) => up!.once('exit', resolve));
    up.kill('SIGTERM');
    await exited;
  }
  await kafka?.remove();
  await db?.close();
  ca?.remove();
  await freeRedisPrefixKeys(redisKeyPrefix).catch(() => undefined);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}, 60_000);

/** The pid supervise reported for each process ("==> gateway is up (pid 123, log ...)"). */
function startedPids(): Map<string, number> {
  return new Map(
    [...output.matchAll(/(\S+) is up \(pid (\d+)/g)].map((m) => [m[1]!, Number(m[2])]),
  );
}

it('starts every process of the local stack', () => {
  expect([...startedPids().keys()].sort()).toEqual([...PROCESSES].sort());
});

it.each([...PROCESSES, 'kafka'])('%s listens on 127.0.0.1 only', (name) => {
  const pid = name === 'kafka' ? kafka.pid() : startedPids().get(name);
  expect(pid).toBeDefined();
  const sockets = listeningSockets(pid!);
  // every process of the stack serves something; none listening means the check saw nothing
  expect(sockets.length).toBeGreaterThan(0);
  expect(sockets.filter((s) => s.address !== '127.0.0.1')).toEqual([]);
});
