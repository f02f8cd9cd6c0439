import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './freePort';
import { REPO_ROOT } from './paths';

/** A Kafka broker of one test (never the shared one on :9092), which it may stop and restart. */
export interface OwnKafka {
  brokers: string[];
  /** Stops the broker (SIGTERM, SIGKILL after 20 s); its data stays. */
  stop(): Promise<void>;
  /** SIGKILLs the broker (a crash: no clean shutdown) and waits until it is gone; its data stays. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data. */
  start(): Promise<void>;
  /** Stops it and deletes its data. */
  remove(): Promise<void>;
  /** The broker JVM's pid (scripts/kafka.sh's pid file). */
  pid(): number;
  /** The SASL_SSL listener, when started with `saslSsl: true`. */
  saslSsl?: SaslSslListener;
}

/** A SASL_SSL listener of a test's broker (scripts/kafka.sh KAFKA_SASL_SSL_PORT). */
export interface SaslSslListener {
  brokers: string[];
  /** The test CA that signed the broker's certificate (PEM file). */
  caFile: string;
  /** A user known to SCRAM-SHA-512, SCRAM-SHA-256 and PLAIN. */
  username: string;
  /** Its password as the broker was formatted with (rotateScramPassword changes SCRAM's). */
  password: string;
  /** Changes the user's SCRAM password on the broker, as an operator rotating it does. */
  rotateScramPassword(password: string): Promise<void>;
}

/** The user scripts/kafka.sh creates when the test asks for none. */
const SASL_USER = { username: 'brand', password: 'brand-test-secret' };

/** Runs scripts/kafka.sh `command` with `env` over this process's environment. */
export function kafkaSh(
  command: 'ensure' | 'stop' | 'scram-password',
  env: Record<string, string>,
  args: string[] = [],
): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      [path.join(REPO_ROOT, 'scripts/kafka.sh'), command, ...args],
      { env: { ...process.env, ...env }, timeout: 180_000 },
      (err, stdout, stderr) =>
        err
          ? reject(new Error(`kafka.sh ${command} failed: ${err.message}\n${stdout}${stderr}`))
          : resolve(),
    );
  });
}

/**
 * Starts a single-node broker of this test with scripts/kafka.sh on two free ports and a
 * temp data dir (the jars are cached by the shared broker's first start). `saslSsl` adds a
 * SASL_SSL listener on a third port (a test CA, SCRAM users made at format; issue 43).
 */
export async function startOwnKafka(opts: { saslSsl?: boolean } = {}): Promise<OwnKafka> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'brand-kafka-'));
  const port = await freePort();
  const saslPort = opts.saslSsl ? await freePort() : undefined;
  const env: Record<string, string> = {
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(await freePort()),
    KAFKA_DATA_DIR: dataDir,
    ...(saslPort
      ? {
          KAFKA_SASL_SSL_PORT: String(saslPort),
          KAFKA_TEST_SASL_USER: SASL_USER.username,
          KAFKA_TEST_SASL_PASSWORD: SASL_USER.password,
        }
      : {}),
  };
  await kafkaSh('ensure', env);
  return {
    brokers: [`127.0.0.1:${port}`],
    ...(saslPort
      ? {
          saslSsl: {
            brokers: [`127.0.0.1:${saslPort}`],
            caFile: path.join(dataDir, 'tls', 'ca.pem'),
            ...SASL_USER,
            rotateScramPassword: (password: string) =>
              kafkaSh('scram-password', env, [SASL_USER.username, password]),
          },
        }
      : {}),
    stop: () => kafkaSh('stop', env),
    kill: () => killBroker(path.join(dataDir, 'kafka.pid')),
    pid: () => readPid(path.join(dataDir, 'kafka.pid')),
    start: () => kafkaSh('ensure', env),
    remove: async () => {
      await kafkaSh('stop', env).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function readPid(pidFile: string): number {
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no broker pid in ${pidFile}`);
  return pid;
}

/** SIGKILL of the JVM kafka.sh recorded in its pid file, then a wait for it to be gone. */
export async function killBroker(pidFile: string): Promise<void> {
  const pid = readPid(pidFile);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return; // already gone
  }
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`broker pid ${pid} still alive 10 s after SIGKILL`);
}
