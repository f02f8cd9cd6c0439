// `npm run up` knows its broker. scripts/lib/kafkaWatch.sh is driven here as up drives it (inside
// supervise_forever), with stand-ins: a TCP listener for the broker and an HTTP server for
// webhooks' /readyz. A reused broker that goes away is said loudly, and so is its return; one up
// started is restarted (KAFKA_RESTART_COMMAND stands in for kafka.sh); webhooks' readiness saying
// Kafka unreachable, and reachable again, is printed as it changes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, REPO_ROOT, waitFor } from '@brand/testkit';

const driver = (owned: 0 | 1): string => `
set -Eeuo pipefail
. scripts/lib/common.sh
. scripts/lib/supervise.sh
. scripts/lib/kafkaWatch.sh
trap 'kafka_watch_stop; exit 0' INT TERM
kafka_watch_start ${owned}
SUPERVISE_WATCHERS+=(kafka_watch_check)
supervise_forever
`;

const listenTcp = (port: number): Promise<Server> =>
  new Promise((resolve) => {
    const s = createServer((c) => c.destroy());
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
const closeTcp = (s: Server): Promise<void> => new Promise((r) => s.close(() => r()));

interface Run {
  up: ChildProcess;
  output: () => string;
}

function runDriver(owned: 0 | 1, env: Record<string, string>): Run {
  let output = '';
  const up = spawn('bash', ['-c', driver(owned)], {
    cwd: REPO_ROOT,
    env: { ...process.env, KAFKA_WATCH_INTERVAL: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  up.stdout.on('data', (d: Buffer) => (output += d.toString()));
  up.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return { up, output: () => output };
}

async function stop(run: Run | undefined): Promise<void> {
  if (!run || run.up.exitCode !== null) return;
  const exited = new Promise((r) => run.up.once('exit', r));
  run.up.kill('SIGTERM');
  await exited;
}

let logDir: string;
beforeAll(() => {
  logDir = mkdtempSync(path.join(tmpdir(), 'kafka-watch-'));
});
afterAll(() => rmSync(logDir, { recursive: true, force: true }));

describe('a broker up reused', () => {
  let run: Run | undefined;
  let broker: Server | undefined;
  let webhooks: HttpServer | undefined;
  afterEach(async () => {
    await stop(run);
    if (broker?.listening) await closeTcp(broker);
    webhooks?.close();
  });

  it('says loudly when it goes away and when it is back, and what webhooks reports', async () => {
    const port = await freePort();
    broker = await listenTcp(port);
    let kafkaCheck = 'ok';
    webhooks = createHttpServer((_req, res) => {
      const ready = kafkaCheck === 'ok';
      res.writeHead(ready ? 200 : 503, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          status: ready ? 'ready' : 'not_ready',
          checks: { database: 'ok', kafka: kafkaCheck },
        }),
      );
    });
    await new Promise<void>((r) => webhooks!.listen(0, '127.0.0.1', r));
    run = runDriver(0, {
      KAFKA_BROKERS: `127.0.0.1:${port}`,
      WEBHOOKS_METRICS_PORT: String((webhooks.address() as { port: number }).port),
      LOG_DIR: logDir,
    });
    await waitFor(() => run!.output().includes('watched, never restarted'), { timeoutMs: 10_000 });

    await closeTcp(broker);
    kafkaCheck = 'unreachable';
    await waitFor(() => run!.output().includes('went away'), { timeoutMs: 10_000 });
    expect(run.output()).toContain('did not start it');
    await waitFor(() => run!.output().includes('webhooks says Kafka is unreachable'), {
      timeoutMs: 10_000,
    });

    broker = await listenTcp(port);
    kafkaCheck = 'ok';
    await waitFor(() => run!.output().includes(`Kafka at 127.0.0.1:${port} is back`), {
      timeoutMs: 10_000,
    });
    await waitFor(() => run!.output().includes('webhooks reaches Kafka again'), {
      timeoutMs: 10_000,
    });
    // said once per change, not on every look
    expect(run.output().match(/went away/g)).toHaveLength(1);
  }, 60_000);
});

describe('a broker up started', () => {
  let run: Run | undefined;
  let broker: Server | undefined;
  const pidFile = () => path.join(logDir, 'standin.pid');
  afterEach(async () => {
    await stop(run);
    if (broker?.listening) await closeTcp(broker);
    try {
      process.kill(Number(readFileSync(pidFile(), 'utf8')), 'SIGKILL');
    } catch {
      // the stand-in never started, or is gone
    }
  });

  it('is restarted when it goes away', async () => {
    const port = await freePort();
    broker = await listenTcp(port);
    // stands in for `scripts/kafka.sh ensure`: starts a "broker" in the background and returns
    // once it listens, as ensure does. Its pid is written then, not before: a stand-in that
    // returned at once was started twice on a loaded machine (the watcher's next look found the
    // port still closed), the second one's pid written last, and the first, listening, outlived
    // the test.
    const standIn =
      `node -e 'require("node:net").createServer((c) => c.destroy()).listen(${port}, "127.0.0.1", ` +
      `() => require("node:fs").writeFileSync(process.argv[1], String(process.pid)))' ` +
      `${pidFile()} & for _ in $(seq 100); do [ -s ${pidFile()} ] && break; sleep 0.1; done`;
    run = runDriver(1, {
      KAFKA_BROKERS: `127.0.0.1:${port}`,
      KAFKA_RESTART_COMMAND: standIn,
      LOG_DIR: logDir,
    });
    await waitFor(() => run!.output().includes('restarted if it goes away'), { timeoutMs: 10_000 });
    await closeTcp(broker);
    await waitFor(() => run!.output().includes('restarts it now'), { timeoutMs: 10_000 });
    await waitFor(() => run!.output().includes(`Kafka at 127.0.0.1:${port} is back`), {
      timeoutMs: 15_000,
    });
  }, 60_000);
});
