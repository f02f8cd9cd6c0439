#!/usr/bin/env node
// Usage counting's hot path alone (issue 26): the CPU one request costs the gateway in the
// request prelude's hook (UsageRecorder.observe: the 'finish' listener, the outcome, the address
// memory, the buffer's counter), on built code (npm run build), with real node:http
// request/response objects that are never sent. The walk bench (BENCH_WALK_ONLY=1 npm run bench)
// measures the whole gateway; on a shared, loaded machine its CPU per page moves by far more
// than this hook costs, so this isolates it:
//   node scripts/bench/usageHotPath.mjs       # 10 rounds of 200,000 requests of 50 keys
// Prints the median CPU per request (µs) with the hook and without it (the same objects, no hook).
import { createRequire } from 'node:module';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(root, 'gateway/package.json'));
const usage = (name) => require(path.join(root, 'gateway/dist/usage', name));
const { UsageBuffer } = usage('usageBuffer.js');
const { UsageRecorder } = usage('usageRecorder.js');
const { AddressBrands } = usage('addressBrands.js');

const REQUESTS = 200_000;
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const KEYS = Array.from({ length: 50 }, (_, i) => ({ keyId: `key_${i}`, brandId: `br_${i % 10}` }));

const buffer = new UsageBuffer({ maxBuckets: 10_000, maxLogEntries: 1_000 });
const recorder = new UsageRecorder({
  buffer,
  addresses: new AddressBrands({ maxAddresses: 5_000, ttlMs: 86_400_000 }),
  addressOf: (req) => req.socket.remoteAddress ?? '10.0.0.1',
  assistantRoute: '/api/mcp',
});

/** One request's objects, as node:http makes them, answered 200 and 'finish'ed by hand. */
function exchange(i, hook) {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = '/api/v1/campaigns?limit=50';
  const res = new ServerResponse(req);
  const key = KEYS[i % KEYS.length];
  const scope = {
    requestId: 'req_x',
    route: '/api/v1/:resource',
    brandId: key.brandId,
    keyId: key.keyId,
  };
  if (hook) recorder.observe(req, res, scope);
  res.statusCode = i % 20 === 0 ? 304 : 200;
  res.emit('finish');
}

function round(hook) {
  const start = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i += 1) exchange(i, hook);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / REQUESTS;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
round(true);
round(false);
const on = [];
const off = [];
for (let r = 0; r < ROUNDS; r += 1) {
  on.push(round(true));
  off.push(round(false));
  buffer.drain();
}
const m = { on: median(on), off: median(off) };
console.log(
  `usage hook: ${(m.on - m.off).toFixed(3)} µs CPU per request (median of ${ROUNDS} rounds of ${REQUESTS}: ${m.on.toFixed(3)} with the hook, ${m.off.toFixed(3)} without)`,
);
