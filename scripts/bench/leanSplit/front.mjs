// The bare split's front (BENCH_LEAN=1, lib/walk.mjs): what the gateway does for a list page
// and nothing else. node:http; the key looked up once (B0's query) and cached by its header;
// one call of the gateway's own rate-limit script (the same Lua, a budget per brand, by
// EVALSHA through ioredis); the page as a message on one of two long-lived StreamRecordsPages
// streams to back.mjs; the envelope written around the page's bytes. No request id, access
// line, metric, usage count, trace, deadline, cancellation or failover. Serves B0's request
// lists (B0's paths and cursors). Env: DATABASE_URL, REDIS_URL, REDIS_KEY_PREFIX, LEAN_BACK
// (host:port of back.mjs), LEAN_REDIS (ioredis, the default; ioredis-auto: the same with
// ioredis's auto-pipelining, BENCHMARKS.md; none: no rate limit at all).
import { createHash } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const grpc = require('@grpc/grpc-js');
const pg = require('pg');
const Redis = require('ioredis');
const { RecordsServiceClient } = require('../../../proto/dist/brand/records/v1/records.js');
const { SLIDING_WINDOW_LUA } = require('../../../gateway/dist/ratelimit/slidingWindowScript.js');

const MODE = process.env.LEAN_REDIS || 'ioredis';
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 2,
  application_name: 'bench-lean-front',
  options: '-c search_path=records',
});
const redis = new Redis(process.env.REDIS_URL, { enableAutoPipelining: MODE === 'ioredis-auto' });
redis.defineCommand('slidingWindow', { numberOfKeys: 2, lua: SLIDING_WINDOW_LUA });
const prefix = `${process.env.REDIS_KEY_PREFIX ?? 'bench:'}lean:${MODE}:`;
/** As the bench's gateway: an Enterprise budget (240) x RATE_LIMIT_SCALE 2,000, per minute. */
const LIMIT = 240 * 2000;
const RESOURCES = {
  campaigns: 1,
  submissions: 2,
  payouts: 3,
  deposits: 4,
  conversions: 5,
  links: 6,
};

const keys = new Map();
async function brandOf(authorization) {
  if (!authorization?.startsWith('Bearer ')) return undefined;
  const hit = keys.get(authorization);
  if (hit && hit.until > Date.now()) return hit.brandId;
  const hash = createHash('sha256').update(authorization.slice(7)).digest();
  const { rows } = await pool.query(
    `select k.brand_id from api_keys k join brands b on b.id = k.brand_id
     where k.key_hash = $1 and k.revoked_at is null and b.tier <> 'free'`,
    [hash],
  );
  const brandId = rows[0]?.brand_id;
  keys.set(authorization, { brandId, until: Date.now() + 60_000 });
  return brandId;
}

let epoch = '';
let member = 0;
/** One unit of the brand's budget (the script's answer -1: learn Redis's epoch, ask again). */
async function admit(brandId) {
  if (MODE === 'none') return true;
  for (let attempt = 0; attempt < 2; attempt++) {
    const [allowed, , , , news] = await redis.slidingWindow(
      `${prefix}rl:${brandId}`,
      `${prefix}epoch`,
      LIMIT,
      60_000,
      1,
      `m${member++}`,
      epoch,
      '0',
      // no lease (ARGV[7..9]: units ahead, their prefix, their span), as today's tiers never take one
      '0',
      '',
      '0',
    );
    if (news !== null) epoch = news;
    if (allowed !== -1) return allowed === 1;
  }
  return false;
}

// the system's channel options (its 4 MiB receive window among them): the floor is the
// design at its best, not grpc-js's defaults
const { CLIENT_CHANNEL_OPTIONS } = require('../../../packages/shared/dist/grpcClient/client.js');
const client = new RecordsServiceClient(
  process.env.LEAN_BACK,
  grpc.credentials.createInsecure(),
  CLIENT_CHANNEL_OPTIONS,
);
const waiting = new Map();
let nextId = 1;
const streams = [0, 1].map(() => {
  const call = client.streamRecordsPages(new grpc.Metadata());
  call.on('data', (message) => {
    if (message.kind?.$case !== 'answer') return;
    const { call_id, outcome } = message.kind.value;
    waiting.get(call_id)?.(outcome);
    waiting.delete(call_id);
  });
  call.on('error', (err) => {
    console.error(err);
    process.exit(1);
  });
  return call;
});

const server = http.createServer(async (req, res) => {
  const q = req.url.indexOf('?');
  const name = (q === -1 ? req.url : req.url.slice(0, q)).slice('/api/v1/'.length);
  const resource = RESOURCES[name];
  if (!resource) return res.writeHead(404).end();
  const brandId = await brandOf(req.headers.authorization);
  if (!brandId) return res.writeHead(401).end();
  if (!(await admit(brandId))) return res.writeHead(429).end();
  const params = new URLSearchParams(q === -1 ? '' : req.url.slice(q + 1));
  const id = nextId++;
  waiting.set(id, (outcome) => {
    if (outcome?.$case !== 'page') return res.writeHead(400).end();
    const page = outcome.value;
    const cursor = page.next_cursor === undefined ? '' : `,"next_cursor":"${page.next_cursor}"`;
    const body = Buffer.concat([
      Buffer.from(`{"resource":"${name}","count":${page.count},"data":`),
      page.data_json,
      Buffer.from(`${cursor}}`),
    ]);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(body);
  });
  streams[id % streams.length].write({
    kind: {
      $case: 'call',
      value: {
        call_id: id,
        request_id: '',
        timeout_ms: 5_000,
        traceparent: '',
        tracestate: '',
        page: {
          brand_id: brandId,
          resource,
          limit: params.has('limit') ? Number(params.get('limit')) : 50,
          cursor: params.get('cursor') ?? undefined,
          since: undefined,
          with_change_version: false,
        },
      },
    },
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () =>
  console.log(JSON.stringify({ msg: 'listening', port: server.address().port })),
);
process.on('SIGTERM', () => process.exit(0));
