import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createTestCa,
  createTopic,
  deleteTopic,
  REPO_ROOT,
  spawnService,
  startStack,
  TEST_CONSOLE_TOKEN,
  testKafkaBrokers,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type ServiceProcess,
  type Stack,
  type TestCa,
} from '@brand/testkit';
import { startDevMailbox, type DevMailbox } from '../src/mail/devMailbox';

const CONSOLE_MAIN = path.join(REPO_ROOT, 'console/dist/main.js');

/** Everything a console test needs: the services, a gateway, the mailbox and the console. */
export interface ConsoleStack {
  stack: Stack;
  /** The console's origin, e.g. "http://127.0.0.1:41234" (also its CONSOLE_PUBLIC_URL). */
  url: string;
  opsUrl: string;
  consoleProcess: ServiceProcess;
  mailbox: DevMailbox;
  /** The test CA local HTTPS receivers use (the webhooks service trusts it). */
  ca: TestCa;
  /** The business-events topic records publishes to and webhooks consumes. */
  topic: string;
  /** The sign-in link of the newest mail to `email` not handed out before, waiting for it. */
  latestLink(email: string, after?: number, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

/** A port the OS says is free now, for a process that must know its own URL before it starts. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Starts records, plans, webhooks (admitting local HTTPS receivers of a test CA), a gateway,
 * a dev mailbox in a temp directory and the built console pointed at all of them.
 */
export async function startConsoleStack(
  opts: { recordsEnv?: Record<string, string>; consoleEnv?: Record<string, string> } = {},
): Promise<ConsoleStack> {
  const ca = createTestCa();
  const topic = uniqueTopic('console');
  await createTopic(topic);
  const stack = await startStack({
    plans: true,
    recordsEnv: {
      KAFKA_BROKERS: testKafkaBrokers().join(','),
      BUSINESS_EVENTS_TOPIC: topic,
      ...opts.recordsEnv,
    },
    webhooks: { topic, groupId: uniqueConsumerGroup('console'), caFile: ca.caFile },
  });
  const mailbox = await startDevMailbox({
    dir: mkdtempSync(path.join(tmpdir(), 'console-mailbox-')),
    port: 0,
  });
  try {
    const handedOut = new Set<string>();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const consoleProcess = await spawnService({
      name: 'console',
      entry: CONSOLE_MAIN,
      env: {
        HTTP_PORT: String(port),
        HTTP_HOST: '127.0.0.1',
        METRICS_PORT: '0',
        CONSOLE_PUBLIC_URL: url,
        GATEWAY_PUBLIC_URL: stack.gateway.url,
        RECORDS_GRPC_ADDR: stack.records.address,
        PLANS_GRPC_ADDR: stack.plans!.address,
        WEBHOOKS_GRPC_ADDR: stack.webhooks!.address,
        CONSOLE_TOKEN: TEST_CONSOLE_TOKEN,
        SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`,
        REDIS_URL: stack.redisUrl,
        REDIS_KEY_PREFIX: stack.redisKeyPrefix,
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'info',
        ...opts.consoleEnv,
      },
    });
    return {
      stack,
      url,
      opsUrl: `http://127.0.0.1:${String(consoleProcess.listening.ops_port)}`,
      consoleProcess,
      mailbox,
      ca,
      topic,
      latestLink: async (email, after = 0, timeoutMs = 15_000) => {
        const link = await latestLink(mailbox.dir, email, after, handedOut, timeoutMs);
        handedOut.add(link);
        return link;
      },
      async close() {
        if (process.env.CONSOLE_TEST_LOGS)
          process.stdout.write(`${consoleProcess.logs().join('\n')}\n`);
        await consoleProcess.stop('SIGTERM', 5_000);
        await mailbox.close();
        await stack.close();
        await deleteTopic(topic).catch(() => undefined);
        ca.remove();
      },
    };
  } catch (err) {
    await mailbox.close();
    await stack.close();
    throw err;
  }
}

/**
 * Waits for a mail to `email` written at or after `after` (ms since the epoch) and returns the
 * sign-in link in it, read from the raw .eml file as a person's mail client would show it.
 */
async function latestLink(
  dir: string,
  email: string,
  after: number,
  handedOut: Set<string>,
  timeoutMs: number,
): Promise<string> {
  let link = '';
  await waitFor(
    () => {
      const files = readdirSync(dir)
        .filter((f) => f.endsWith('.eml'))
        .sort()
        .reverse();
      for (const file of files) {
        const full = path.join(dir, file);
        if (statSync(full).mtimeMs < after) continue;
        const raw = readFileSync(full, 'utf8');
        const to = /^To: (.*)$/im.exec(raw)?.[1] ?? '';
        if (!to.includes(email)) continue;
        // Quoted-printable soft line breaks ("=\r\n") may split a long link.
        const body = raw.replace(/=\r?\n/g, '');
        const found = /(https?:\/\/\S+\/sign-in\/[A-Za-z0-9_-]+)/.exec(body)?.[1];
        if (found && !handedOut.has(found)) {
          link = found;
          return true;
        }
      }
      return false;
    },
    { timeoutMs, what: `a sign-in mail to ${email}` },
  );
  return link;
}
