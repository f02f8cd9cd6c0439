#!/usr/bin/env node
// The rate limiter's hot path alone (issue 19): the gateway's CPU per call and Redis's time
// per script call of RedisSlidingWindowLimiter, on a redis-server of its own (a free port,
// nothing on disk), so commandstats count only these calls. Built code (npm run build).
// To compare two commits, run it at each (the limiter before issue 19 takes no ledger):
//   node scripts/bench/limiterHotPath.mjs            # 12 rounds of 10,000 calls, 50 at a time
// Prints the medians and each round's gateway CPU per call.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(root, 'gateway/package.json'));
const dist = (name) => path.join(root, 'gateway/dist/ratelimit', name);
const { createRedisClient, closeRedis } = require('@brand/shared/redis');
const { createLogger } = require('@brand/shared/logger');
const { RedisSlidingWindowLimiter } = require(dist('redisLimiter.js'));
const ledgerModule = dist('admissionLedger.js');

const CALLS = 10_000;
const CONCURRENCY = 50;
const ROUNDS = Number(process.env.ROUNDS ?? 12);

async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

const port = await freePort();
const redisServer = spawn(
  'redis-server',
  ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
  { stdio: 'ignore' },
);
const log = createLogger({ service: 'bench', level: 'silent' });
const connect = async (name) => {
  for (;;) {
    const client = createRedisClient({
      url: `redis://127.0.0.1:${port}`,
      name,
      log,
      queueWhileOffline: false,
    });
    const ready = await new Promise((r) => {
      client.once('ready', () => r(true));
      setTimeout(() => r(false), 1_000);
    });
    if (ready) return client;
    client.disconnect();
  }
};

try {
  const admin = await connect('admin');
  const redis = await connect('limiter');
  const limiter = existsSync(ledgerModule)
    ? new RedisSlidingWindowLimiter(
        redis,
        'b:',
        new (require(ledgerModule).AdmissionLedger)({ maxKeys: 1_000 }),
      )
    : new RedisSlidingWindowLimiter(redis, 'b:');
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    await admin.config('RESETSTAT');
    let started = 0;
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        // a budget never spent: every call is admitted and written, the common case
        while (started++ < CALLS) await limiter.consume(`brand:r${round}`, 1e9, 1);
      }),
    );
    const ms = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    const stats = /cmdstat_evalsha:calls=\d+,usec=\d+,usec_per_call=([\d.]+)/.exec(
      await admin.info('commandstats'),
    );
    rounds.push({
      callsPerSecond: Math.round((CALLS / ms) * 1000),
      gatewayCpuUs: (used.user + used.system) / CALLS,
      redisUs: Number(stats?.[1] ?? NaN),
    });
  }
  const median = (f) => rounds.map(f).sort((a, b) => a - b)[rounds.length >> 1];
  console.log(
    JSON.stringify({
      ledger: existsSync(ledgerModule),
      callsPerSecond: median((r) => r.callsPerSecond),
      gatewayCpuUsPerCall: +median((r) => r.gatewayCpuUs).toFixed(1),
      redisUsPerCall: +median((r) => r.redisUs).toFixed(2),
      rounds: rounds.map((r) => +r.gatewayCpuUs.toFixed(1)),
    }),
  );
  await closeRedis(redis);
  await closeRedis(admin);
} finally {
  redisServer.kill('SIGKILL');
}
