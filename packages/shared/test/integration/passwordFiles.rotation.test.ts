// Issue 60: database and Redis passwords rotated while the process runs. A PostgreSQL of this
// test's own with password authentication (SCRAM) and a redis-server with requirepass; the
// services' own pool and Redis client read DATABASE_PASSWORD_FILE and REDIS_PASSWORD_FILE. The
// password changes on the server and in the file (renamed into place, as kubelet does), the
// open connections are cut, and the next connections authenticate with the new password; the
// old one is refused.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createConnection } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { createPool, type Pool } from '@brand/shared/db';
import { createLogger } from '@brand/shared/logger';
import { closeRedis, createRedisClient } from '@brand/shared/redis';
import { freePort, postgresBinDir, waitFor } from '@brand/testkit';

const log = createLogger({ service: 'rotation-test', level: 'warn' });
let dir: string;
let pgPort: number;
let redisPort: number;
let redisServer: ChildProcess | undefined;

/** As root, PostgreSQL's tools run as the postgres user (initdb refuses root). */
function runPg(tool: string, args: string[]): Promise<void> {
  return postgresBinDir().then(
    (bin) =>
      new Promise((resolve, reject) => {
        const cmd = path.join(bin, tool);
        const [file, argv] =
          process.getuid?.() === 0
            ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]]
            : [cmd, args];
        execFile(file, argv, { timeout: 120_000 }, (err, _out, stderr) =>
          err ? reject(new Error(`${tool}: ${err.message}\n${stderr}`)) : resolve(),
        );
      }),
  );
}

/** Writes `text` as kubelet updates a mounted Secret: a new file renamed into place. */
function writeSecret(file: string, text: string): void {
  writeFileSync(`${file}.next`, `${text}\n`);
  renameSync(`${file}.next`, file);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'brand-password-rotation-'));
  if (process.getuid?.() === 0) {
    const id = (flag: string) =>
      new Promise<number>((resolve, reject) =>
        execFile('id', [flag, 'postgres'], (err, out) =>
          err ? reject(new Error(err.message)) : resolve(Number(out)),
        ),
      );
    chownSync(dir, await id('-u'), await id('-g'));
  }
  writeFileSync(path.join(dir, 'initial-password'), 'first-db-password\n');
  await runPg('initdb', [
    '-D',
    path.join(dir, 'data'),
    '-U',
    'postgres',
    '--auth=scram-sha-256',
    `--pwfile=${path.join(dir, 'initial-password')}`,
  ]);
  pgPort = await freePort();
  await runPg('pg_ctl', [
    '-D',
    path.join(dir, 'data'),
    'start',
    '-w',
    '-l',
    path.join(dir, 'pg.log'),
    '-o',
    `-p ${pgPort} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
  ]);
  redisPort = await freePort();
  redisServer = spawn(
    'redis-server',
    [
      '--port',
      String(redisPort),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--requirepass',
      'first-redis-password',
    ],
    { stdio: 'ignore' },
  );
}, 120_000);

afterAll(async () => {
  redisServer?.kill('SIGKILL');
  await runPg('pg_ctl', ['-D', path.join(dir, 'data'), 'stop', '-m', 'immediate']).catch(
    () => undefined,
  );
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** Redis's first reply line to AUTH `password` on a connection of its own. */
function redisAuthReply(password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port: redisPort }, () =>
      socket.write(`AUTH ${password}\r\n`),
    );
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString('utf8').split('\r\n')[0]!);
    });
    socket.once('error', reject);
  });
}

async function pgAccepts(password: string): Promise<boolean> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port: pgPort,
    user: 'postgres',
    database: 'postgres',
    password,
  });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

it('a database password rotated on the server and in the file: new connections use it', async () => {
  const file = path.join(dir, 'database-password');
  writeSecret(file, 'first-db-password');
  let pool: Pool | undefined;
  try {
    pool = createPool({
      connectionString: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
      passwordFile: file,
      schema: 'public',
      max: 2,
      connectTimeoutMs: 5_000,
      statementTimeoutMs: 5_000,
      applicationName: 'rotation-test',
      log,
    });
    expect((await pool.query<{ one: number }>('select 1 as one')).rows[0]!.one).toBe(1);

    await pool.query(`alter role postgres password 'second-db-password'`);
    writeSecret(file, 'second-db-password');
    // every open connection of the pool cut (from outside it): the next query needs a new one
    const admin = new pg.Client({
      host: '127.0.0.1',
      port: pgPort,
      user: 'postgres',
      database: 'postgres',
      password: 'second-db-password',
    });
    await admin.connect();
    try {
      const cut = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'rotation-test'`,
      );
      expect(cut.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    const answered = await waitFor(
      () =>
        pool!.query<{ one: number }>('select 1 as one').then(
          (r) => r.rows[0]!.one,
          () => undefined,
        ),
      { timeoutMs: 10_000, what: 'a query on a new connection' },
    );
    expect(answered).toBe(1);
    expect(await pgAccepts('first-db-password')).toBe(false);
    expect(await pgAccepts('second-db-password')).toBe(true);
  } finally {
    await pool?.end();
  }
}, 60_000);

it('a Redis password rotated on the server and in the file: the client reconnects with it', async () => {
  const file = path.join(dir, 'redis-password');
  writeSecret(file, 'first-redis-password');
  const url = `redis://127.0.0.1:${redisPort}`;
  const client = createRedisClient({
    url,
    passwordFile: file,
    name: 'rotation-test',
    log,
    queueWhileOffline: false,
  });
  const admin = new Redis(url, { password: 'first-redis-password', lazyConnect: true });
  try {
    await waitFor(() => client.status === 'ready', { timeoutMs: 10_000, what: 'redis ready' });
    expect(await client.ping()).toBe('PONG');

    await admin.connect();
    await admin.config('SET', 'requirepass', 'second-redis-password');
    writeSecret(file, 'second-redis-password');
    // the client's connection cut: it reconnects, and authenticates with the file's text
    await admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    const pong = await waitFor(
      () => (client.status === 'ready' ? client.ping().catch(() => undefined) : undefined),
      { timeoutMs: 10_000, what: 'PONG after the reconnect' },
    );
    expect(pong).toBe('PONG');
    // the old password is refused now, the new one accepted (AUTH on a bare connection)
    expect(await redisAuthReply('first-redis-password')).toMatch(/^-WRONGPASS/);
    expect(await redisAuthReply('second-redis-password')).toBe('+OK');
  } finally {
    await closeRedis(client);
    admin.disconnect();
  }
}, 60_000);
