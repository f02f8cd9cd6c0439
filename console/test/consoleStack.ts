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
  startTestDns,
  TEST_CONSOLE_TOKEN,
  testKafkaBrokers,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type ServiceProcess,
  type Stack,
  type TestCa,
  type TestDns,
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
  /** Where the mailbox writes each message it accepts. */
  mailDir: string;
  /** The test CA local HTTPS receivers use (the webhooks service trusts it). */
  ca: TestCa;
  /** The business-events topic records publishes to and webhooks consumes. */
  topic: string;
  /** The DNS server records checks single sign-on domains' proofs with (SSO_DNS_SERVERS). */
  dns: TestDns;
  /** The sign-in link of the newest mail to `email` not handed out before, waiting for it. */
  latestLink(email: string, after?: number, timeoutMs?: number): Promise<string>;
  /** The sign-in links of every mail to `email` so far, oldest first. */
  linksTo(email: string): string[];
  /** The address of every mail so far (one entry per mail). */
  recipients(): string[];
  /** The readable text (.txt) of every mail to `email` so far, oldest first. */
  mailTextsTo(email: string): string[];
  /**
   * The invitation link (/invite/<token>) of the newest mail to `email` naming `brandName`,
   * written at or after `after`, waiting for it.
   */
  latestInvitation(email: string, brandName: string, after?: number): Promise<string>;
  /** Stops the mailbox (the SMTP server refuses connections) until startMailbox(). */
  stopMailbox(): Promise<void>;
  /** Starts the mailbox again, on the same port and directory. */
  startMailbox(): Promise<void>;
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

/** An address nothing answers on: the services a sign-in-only stack leaves out. */
const NOWHERE = '127.0.0.1:9';

/**
 * Starts records, plans, webhooks (admitting local HTTPS receivers of a test CA), a gateway,
 * a dev mailbox in a temp directory and the built console pointed at all of them. With
 * `signInOnly`, only records, the mailbox and the console: all signing in needs, with nothing
 * else competing for the CPU (the timing test).
 */
export async function startConsoleStack(
  opts: {
    recordsEnv?: Record<string, string>;
    webhooksEnv?: Record<string, string>;
    consoleEnv?: Record<string, string>;
    signInOnly?: boolean;
    /**
     * The host of the console's public URL: "localhost" where WebAuthn runs in a browser
     * (browsers refuse passkeys on an IP address); 127.0.0.1 otherwise. The console listens on
     * 127.0.0.1 either way, which is where browsers resolve localhost.
     */
    publicHost?: 'localhost' | '127.0.0.1';
  } = {},
): Promise<ConsoleStack> {
  const ca = createTestCa();
  const topic = uniqueTopic('console');
  if (!opts.signInOnly) await createTopic(topic);
  // The test identity provider runs on loopback over http: records admits it only with the
  // local-only setting, as the local stack does; brands prove their SSO domains to records
  // through a DNS server of the test's own (docs/console.md "Single sign-on").
  const dns = await startTestDns();
  const recordsEnv = {
    WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true',
    SSO_DNS_SERVERS: dns.server,
    ...opts.recordsEnv,
  };
  const stack = await startStack(
    opts.signInOnly
      ? { gateways: 0, recordsEnv }
      : {
          plans: true,
          recordsEnv: {
            KAFKA_BROKERS: testKafkaBrokers().join(','),
            BUSINESS_EVENTS_TOPIC: topic,
            ...recordsEnv,
          },
          webhooks: {
            topic,
            groupId: uniqueConsumerGroup('console'),
            caFile: ca.caFile,
            env: opts.webhooksEnv,
          },
        },
  );
  let mailbox: DevMailbox | undefined = await startDevMailbox({
    dir: mkdtempSync(path.join(tmpdir(), 'console-mailbox-')),
    port: 0,
  });
  const { dir: mailDir, port: mailPort } = mailbox;
  try {
    const handedOut = new Set<string>();
    // The console must know its own URL before it listens, so its port is picked free first;
    // another process may take it in between on a busy machine: pick again (three tries).
    const urlOf = (port: number) => `http://${opts.publicHost ?? '127.0.0.1'}:${port}`;
    const spawnConsole = async (port: number) =>
      spawnService({
        name: 'console',
        entry: CONSOLE_MAIN,
        env: {
          HTTP_PORT: String(port),
          METRICS_PORT: '0',
          CONSOLE_PUBLIC_URL: urlOf(port),
          GATEWAY_PUBLIC_URL: stack.gateways[0]?.url ?? `http://${NOWHERE}`,
          RECORDS_GRPC_ADDR: stack.records.address,
          PLANS_GRPC_ADDR: stack.plans?.address ?? NOWHERE,
          WEBHOOKS_GRPC_ADDR: stack.webhooks?.address ?? NOWHERE,
          CONSOLE_TOKEN: TEST_CONSOLE_TOKEN,
          SMTP_URL: `smtp://127.0.0.1:${mailPort}`,
          REDIS_URL: stack.redisUrl,
          REDIS_KEY_PREFIX: stack.redisKeyPrefix,
          LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'info',
          // Mail goes out within a tenth of a second, so tests wait little for links.
          SIGN_IN_MAIL_POLL_MS: '100',
          // Without webhooks there are no receiver notices to ask for.
          ...(opts.signInOnly ? { RECEIVER_NOTICE_INTERVAL_MS: '3600000' } : {}),
          ...opts.consoleEnv,
        },
      });
    let port = await freePort();
    let consoleProcess: ServiceProcess | undefined;
    for (let attempt = 1; consoleProcess === undefined; attempt++) {
      try {
        consoleProcess = await spawnConsole(port);
      } catch (err) {
        if (attempt === 3 || !String(err).includes('EADDRINUSE')) throw err;
        port = await freePort();
      }
    }
    const url = urlOf(port);
    return {
      stack,
      url,
      opsUrl: `http://127.0.0.1:${String(consoleProcess.listening.ops_port)}`,
      consoleProcess,
      mailDir,
      ca,
      topic,
      dns,
      // 60 s: in CI's browser stage (nice 10, beside the fault suite and the bench smoke run)
      // a sign-in mail once took longer than 15 s to arrive.
      latestLink: async (email, after = 0, timeoutMs = 60_000) => {
        const link = await latestLink(mailDir, email, after, handedOut, timeoutMs);
        handedOut.add(link);
        return link;
      },
      linksTo: (email) => mailsTo(mailDir, email).map((m) => m.link),
      recipients: () => readMails(mailDir).map((m) => m.to),
      mailTextsTo: (email) => mailTexts(mailDir).flatMap((m) => (m.to === email ? [m.text] : [])),
      latestInvitation: async (email, brandName, after = 0) => {
        let link = '';
        await waitFor(
          () => {
            const mail = mailTexts(mailDir)
              .reverse()
              .find((m) => m.to === email && m.mtimeMs >= after && m.text.includes(brandName));
            link = (mail && INVITATION_LINK.exec(mail.text)?.[1]) ?? '';
            return link !== '';
          },
          { timeoutMs: 60_000, what: `an invitation to ${brandName} mailed to ${email}` },
        );
        return link;
      },
      async stopMailbox() {
        await mailbox?.close();
        mailbox = undefined;
      },
      async startMailbox() {
        mailbox ??= await startDevMailbox({ dir: mailDir, port: mailPort });
      },
      async close() {
        if (process.env.CONSOLE_TEST_LOGS)
          process.stdout.write(`${consoleProcess.logs().join('\n')}\n`);
        await consoleProcess.stop('SIGTERM', 5_000);
        await mailbox?.close();
        await stack.close();
        await dns.close();
        if (!opts.signInOnly) await deleteTopic(topic).catch(() => undefined);
        ca.remove();
      },
    };
  } catch (err) {
    await mailbox.close();
    await stack.close();
    await dns.close();
    throw err;
  }
}

/** Every mail in `dir`, oldest first: its address, its time and the sign-in link in it. */
function readMails(dir: string): { to: string; mtimeMs: number; link: string | undefined }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .map((file) => {
      const full = path.join(dir, file);
      const raw = readFileSync(full, 'utf8');
      const to = (/^To: (.*)$/im.exec(raw)?.[1] ?? '').trim().replace(/^<(.*)>$/, '$1');
      // Quoted-printable soft line breaks ("=\r\n") may split a long link.
      const body = raw.replace(/=\r?\n/g, '');
      // A link token is 43 characters; the single sign-on page (/sign-in/sso?brand=…) is not one.
      const link = /(https?:\/\/\S+\/sign-in\/[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/.exec(body)?.[1];
      return { to, mtimeMs: statSync(full).mtimeMs, link };
    });
}

/** An invitation's link in a mail's text: its token is 43 characters, like a sign-in link's. */
const INVITATION_LINK = /(https?:\/\/\S+\/invite\/[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/;

/** Every mail in `dir` as its readable text (.txt), oldest first, with its address and time. */
function mailTexts(dir: string): { to: string; mtimeMs: number; text: string }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((file) => {
      const full = path.join(dir, file);
      const text = readFileSync(full, 'utf8');
      const to = (/^To: (.*)$/im.exec(text)?.[1] ?? '').trim().replace(/^<(.*)>$/, '$1');
      return { to, mtimeMs: statSync(full).mtimeMs, text };
    });
}

/** The mails to `email` in `dir` that carry a link, oldest first. */
function mailsTo(dir: string, email: string): { mtimeMs: number; link: string }[] {
  return readMails(dir).flatMap((m) =>
    m.to === email && m.link ? [{ mtimeMs: m.mtimeMs, link: m.link }] : [],
  );
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
      const fresh = mailsTo(dir, email)
        .reverse()
        .find((m) => m.mtimeMs >= after && !handedOut.has(m.link));
      link = fresh?.link ?? '';
      return fresh !== undefined;
    },
    { timeoutMs, what: `a sign-in mail to ${email}` },
  );
  return link;
}
