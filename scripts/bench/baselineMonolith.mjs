// B0, the benchmark's baseline that matters: what a competent brand engineer would write
// instead of this system, in one express 5 process on the same database. `GET
// /api/v1/{resource}?limit=&cursor=` for the six resources with `Authorization: Bearer <key>`:
//   - the key's SHA-256 looked up in records.api_keys (live, not revoked, tier Plus or above),
//     cached in memory for 60 s;
//   - the same keyset SQL as the records service (the same select lists, the same ORDER BY on
//     the table's columns, so the (brand_id, created_at desc, id desc) index serves it);
//   - the same JSON envelope { resource, count, data, next_cursor? } via res.json;
//   - an HMAC-SHA256-signed cursor bound to the brand and the resource
//     (the SQL and the cursors: baselinePages.mjs, shared with the bare split's back).
// And `GET /api/v1/{resource}/{id}` (issue 44): the same cached key check, one query by brand
// and id, res.json of the row or a 404.
// Env: DATABASE_URL, CURSOR_SECRET. Listens on 127.0.0.1, a port the OS picks, and logs
// {"msg":"listening","port":n} as the services do. No rate limit, no gRPC, no access log.
// With If-None-Match, express's own ETag and 304 (S7; see `conditional` below).
import { createHash } from 'node:crypto';
import express from 'express';
import pg from 'pg';
import { KEYSET_QUERIES, RECORD_QUERIES, cursorCodec } from './baselinePages.mjs';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 10,
  application_name: 'bench-b0',
  // pg closes idle connections after 10 s by default: while the other arms ran, B0's backends
  // were replaced, and the new ones' CPU went uncounted (arms.mjs looks them up once)
  idleTimeoutMillis: 0,
  options: '-c search_path=records',
});
const secret = process.env.CURSOR_SECRET;
const KEY_TTL_MS = 60_000;
const keys = new Map();

const cursors = cursorCodec(secret);

async function brandOf(authorization) {
  if (!authorization?.startsWith('Bearer ')) return undefined;
  const hash = createHash('sha256').update(authorization.slice(7)).digest();
  const cacheKey = hash.toString('hex');
  const hit = keys.get(cacheKey);
  if (hit && hit.until > Date.now()) return hit.brandId;
  const { rows } = await pool.query(
    `select k.brand_id from api_keys k join brands b on b.id = k.brand_id
     where k.key_hash = $1 and k.revoked_at is null and k.environment = 'live'
       and b.tier <> 'free'`,
    [hash],
  );
  const brandId = rows[0]?.brand_id;
  keys.set(cacheKey, { brandId, until: Date.now() + KEY_TTL_MS });
  return brandId;
}

/** One page as B0 answers it: res.json of the envelope. */
async function listRecords(req, res) {
  const { resource } = req.params;
  const queries = Object.hasOwn(KEYSET_QUERIES, resource) ? KEYSET_QUERIES[resource] : undefined;
  if (!queries) return res.status(404).json({ error: { code: 'not_found' } });
  const brandId = await brandOf(req.headers.authorization);
  if (!brandId) return res.status(401).json({ error: { code: 'invalid_key' } });
  const limit = req.query.limit === undefined ? 50 : Number(req.query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200)
    return res.status(400).json({ error: { code: 'invalid_parameter' } });
  const binding = `${brandId}.${resource}`;
  let rows;
  if (req.query.cursor === undefined) {
    ({ rows } = await pool.query(queries.first, [brandId, limit]));
  } else {
    const at = cursors.decode(binding, req.query.cursor);
    if (!at) return res.status(400).json({ error: { code: 'invalid_cursor' } });
    ({ rows } = await pool.query(queries.after, [brandId, limit, at.t, at.i]));
  }
  const page = { resource, count: rows.length, data: rows };
  if (rows.length === limit) page.next_cursor = cursors.encode(binding, rows[rows.length - 1]);
  res.json(page);
}

/** One record as B0 answers it: res.json of the row, or 404. */
async function retrieveRecord(req, res) {
  const { resource, id } = req.params;
  const query = Object.hasOwn(RECORD_QUERIES, resource) ? RECORD_QUERIES[resource] : undefined;
  if (!query) return res.status(404).json({ error: { code: 'unknown_resource' } });
  const brandId = await brandOf(req.headers.authorization);
  if (!brandId) return res.status(401).json({ error: { code: 'invalid_key' } });
  const { rows } = await pool.query(query, [brandId, id]);
  if (rows.length === 0) return res.status(404).json({ error: { code: 'not_found' } });
  res.json(rows[0]);
}

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
// S7: a request with If-None-Match is answered by express's own ETag handling, as a brand
// engineer would get it by leaving the `etag` setting on: res.json builds the page, hashes
// it into a weak ETag and answers 304 when If-None-Match matches (req.fresh). Requests
// without it (S1, S2) keep the setting off, as before, so their figures are unchanged.
const conditional = express();
conditional.disable('x-powered-by');
conditional.set('etag', true);
conditional.get('/api/v1/:resource', listRecords);
app.use((req, res, next) =>
  req.headers['if-none-match'] === undefined ? next() : conditional(req, res, next),
);
app.get('/api/v1/:resource', listRecords);
app.get('/api/v1/:resource/:id', retrieveRecord);

const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', port: server.address().port }));
});
server.keepAliveTimeout = 65_000;
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.close(() => void pool.end().then(() => process.exit(0)));
    server.closeAllConnections();
  });
}
