// The local stack as `npm run up` starts it, driven by the same shell functions
// (scripts/lib/localStack.sh and demoSeed.sh, under scripts/lib/supervise.sh, with
// config/local.env loaded as up loads it): only ports, data, brokers and secrets are the test's
// own. A test gives the shell lines to run between loading the settings and staying in the
// foreground; the driver prints `local stack started` once they have run.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createTestCa,
  createTestDatabase,
  freePort,
  freeRedisPrefixKeys,
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
  type TestDatabase,
} from '@brand/testkit';

export interface LocalStack {
  kafka: OwnKafka;
  db: TestDatabase;
  /** The settings the driver ran with (the test's own ports, data and secrets). */
  env: Record<string, string>;
  /** The driver's stdout and stderr so far. */
  output(): string;
  /** The pid supervise reported for each process ("==> gateway is up (pid 123, log ...)"). */
  startedPids(): Map<string, number>;
  /** Stops the driver (its processes with it), the broker and the database. */
  close(): Promise<void>;
}

/** Starts the stack and runs `steps` (shell lines) in the driver; resolves once they have run. */
export async function startLocalStack(steps: string): Promise<LocalStack> {
  const kafka = await startOwnKafka();
  const db = await createTestDatabase();
  const ca = createTestCa();
  const workDir = mkdtempSync(path.join(tmpdir(), 'local-stack-'));
  const redisKeyPrefix = uniqueRedisPrefix();
  const [records, plans, webhooks, gateway, consolePort, mailbox, receiver, idp, dns] =
    await Promise.all(Array.from({ length: 9 }, () => freePort()));
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
    WEBHOOK_EXTRA_CA_FILE: ca.caFile,
    DEV_IDP_PORT: String(idp),
    DEV_IDP_ISSUER: `http://127.0.0.1:${idp}`,
    DEV_IDP_DIR: path.join(workDir, 'dev-idp'),
    DEV_IDP_CLIENT_SECRET: 'local-stack-test-client-secret',
    DEV_IDP_PASSWORD: 'local-stack-test-password',
    DEV_DNS_PORT: String(dns),
    DEV_DNS_DIR: path.join(workDir, 'dev-dns'),
    SSO_DNS_SERVERS: `127.0.0.1:${dns}`,
    DEMO_STATE_DIR: workDir,
    INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    CONSOLE_TOKEN: TEST_CONSOLE_TOKEN,
    CURSOR_SECRET: TEST_CURSOR_SECRET,
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
    CONSOLE_ASSERTION_PRIVATE_KEY: TEST_ASSERTION_KEYS.privateKeyPem,
    CONSOLE_ASSERTION_PUBLIC_KEY: TEST_ASSERTION_KEYS.publicKeyPem,
  };
  const driver = `
set -Eeuo pipefail
. scripts/lib/common.sh
. scripts/lib/supervise.sh
. scripts/lib/localStack.sh
. scripts/lib/demoSeed.sh
load_env_file config/local.env
# the processes stop with the driver however it ends: a failed step too (set -e), not only the
# test's SIGTERM, or they outlive the test holding its ports
trap 'status=$?; trap - EXIT; supervise_stop_all; exit $status' EXIT
trap 'exit 0' INT TERM
${steps}
echo "local stack started"
supervise_forever
`;
  let output = '';
  const up: ChildProcess = spawn('bash', ['-c', driver], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  up.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  up.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => up.once('exit', () => resolve()));
  const close = async () => {
    if (up.exitCode === null && up.signalCode === null) {
      up.kill('SIGTERM');
      await exited;
    }
    await kafka.remove();
    await db.close();
    ca.remove();
    await freeRedisPrefixKeys(redisKeyPrefix).catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  };
  try {
    // waiting ends when the driver exits too (a failed step), not at the timeout
    await waitFor(() => output.includes('local stack started') || up.exitCode !== null, {
      timeoutMs: 240_000,
      what: 'the local stack to start',
    });
    if (!output.includes('local stack started'))
      throw new Error(`the driver exited before the stack started:\n${output}`);
  } catch (err) {
    await close();
    throw err;
  }
  return {
    kafka,
    db,
    env,
    output: () => output,
    startedPids: () =>
      new Map([...output.matchAll(/(\S+) is up \(pid (\d+)/g)].map((m) => [m[1]!, Number(m[2])])),
    close,
  };
}

/** The stack started before the file's tests (beforeAll) and closed after them: a getter of it. */
export function useLocalStack(steps: string): () => LocalStack {
  let stack: LocalStack | undefined;
  beforeAll(async () => {
    stack = await startLocalStack(steps);
  }, 300_000);
  afterAll(async () => {
    await stack?.close();
  }, 60_000);
  return () => stack!;
}
