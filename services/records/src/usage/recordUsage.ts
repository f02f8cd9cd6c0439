import { z } from 'zod';
import {
  UsageSurface,
  type RecordUsageRequest,
  type RefusedRequest,
  type UsageCount,
} from '@brand/proto/access/v1/usage';
import { ENVIRONMENTS } from '@brand/shared/enums';
import { AppError } from '@brand/shared/errors';
import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import { countTarget, logTargets, type HashedKey } from './attribution';
import { OUTCOME_PATTERN, USAGE_BOUNDS } from './usageBounds';

const SURFACES: Record<number, 'rest' | 'assistant'> = {
  [UsageSurface.USAGE_SURFACE_REST]: 'rest',
  [UsageSurface.USAGE_SURFACE_ASSISTANT]: 'assistant',
};

const id = (prefix: string) =>
  z.union([z.literal(''), z.string().regex(new RegExp(`^${prefix}_[A-Za-z0-9]{1,64}$`))]);
const Count = z.object({
  brand_id: id('br'),
  key_id: id('key'),
  key_hash: z.union([z.literal(''), z.string().regex(/^[0-9a-f]{64}$/)]),
  address_brand_id: id('br'),
  minute: z.number().int().nonnegative().multipleOf(60),
  surface: z.nativeEnum(UsageSurface).refine((s) => SURFACES[s] !== undefined),
  outcome: z.string().regex(OUTCOME_PATTERN),
  count: z.number().int().positive().max(1e12),
});
const Refused = z.object({
  at: z.number().int().nonnegative(),
  brand_id: id('br'),
  key_id: id('key'),
  key_hash: z.union([z.literal(''), z.string().regex(/^[0-9a-f]{64}$/)]),
  address_brand_id: id('br'),
  method: z.string().max(16),
  path: z.string().max(256),
  status: z.number().int().min(400).max(599),
  error_code: z.string().regex(/^[a-z_]{0,64}$/),
  request_id: z.string().max(128),
  surface: z.nativeEnum(UsageSurface).refine((s) => SURFACES[s] !== undefined),
  gateway_reason: z.enum(['', 'no_key', 'malformed', 'wrong_environment']),
  // the address the gateway answered (issue 63); '' from a gateway of an older release
  client_address: z.string().max(64).optional(),
});
const Batch = z.object({
  counts: z.array(Count).max(USAGE_BOUNDS.maxCountsPerCall),
  requests: z.array(Refused).max(USAGE_BOUNDS.maxRequestsPerCall),
  batch_id: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be a batch id'),
});

/**
 * Stores one gateway flush in one transaction: the batch id first (a retried flush whose
 * answer was lost is stored once), key hashes resolved to their keys, counts added to the
 * minute and hour rows (count = count + n: instances add up), refused requests appended under
 * the attribution rule (attribution.ts). Returns the brands whose log grew, for the sweep.
 */
export async function recordUsage(pool: Pool, req: RecordUsageRequest): Promise<Set<string>> {
  const serving = ENVIRONMENTS.fromProto(req.environment);
  if (serving === undefined) throw new AppError('invalid_parameter', 'environment is required.');
  const parsed = Batch.safeParse(req);
  if (!parsed.success)
    throw new AppError(
      'validation_failed',
      `The usage batch is not valid: ${parsed.error.issues[0]?.message ?? ''}`,
    );
  const { counts, requests, batch_id } = req;
  return withTransaction(pool, async (db) => {
    const fresh = await db.query(
      'insert into usage_batches (id) values ($1) on conflict do nothing returning id',
      [batch_id],
    );
    if (fresh.rowCount === 0) return new Set<string>();
    const keys = await hashedKeys(
      db,
      [...counts, ...requests].map((x) => x.key_hash),
    );
    await addCounts(db, counts, keys);
    return appendLog(db, requests, keys, serving);
  });
}

async function hashedKeys(db: PoolClient, hashes: string[]): Promise<Map<string, HashedKey>> {
  const wanted = [...new Set(hashes.filter((h) => h !== ''))];
  const found = new Map<string, HashedKey>();
  if (wanted.length === 0) return found;
  const r = await db.query<{
    hash: string;
    id: string;
    brand_id: string;
    environment: string;
    revoked: boolean;
    expires_ms: string | null;
  }>(
    `select encode(key_hash, 'hex') as hash, id, brand_id, environment, revoked_at is not null as revoked,
            ${EXPIRES_MS} as expires_ms
       from api_keys where key_hash = any($1::bytea[])`,
    [wanted.map((h) => Buffer.from(h, 'hex'))],
  );
  for (const row of r.rows) {
    const expires = row.expires_ms === null ? undefined : Number(row.expires_ms);
    found.set(row.hash, {
      id: row.id,
      brand_id: row.brand_id,
      environment: row.environment,
      revoked: row.revoked,
      expiredAt: (at) => expires !== undefined && at >= expires,
    });
  }
  return found;
}

/** A key's expiry (migration 0010: key rolls) in epoch ms, or null. */
const EXPIRES_MS = '(extract(epoch from expires_at) * 1000)::bigint::text';

async function addCounts(
  db: PoolClient,
  counts: UsageCount[],
  keys: Map<string, HashedKey>,
): Promise<void> {
  const minutes = new Map<string, number>();
  const hours = new Map<string, number>();
  for (const c of counts) {
    const target = countTarget(c, keys);
    if (!target) continue;
    const surface = SURFACES[c.surface]!;
    const tail = `\t${target.keyId}\t${surface}\t${c.outcome}`;
    const mk = `${target.brandId}\t${c.minute}${tail}`;
    const hk = `${target.brandId}\t${c.minute - (c.minute % 3600)}${tail}`;
    minutes.set(mk, (minutes.get(mk) ?? 0) + c.count);
    hours.set(hk, (hours.get(hk) ?? 0) + c.count);
  }
  await upsertCounts(db, 'usage_minutes', 'minute', minutes);
  await upsertCounts(db, 'usage_hours', 'hour', hours);
}

async function upsertCounts(
  db: PoolClient,
  table: 'usage_minutes' | 'usage_hours',
  slice: 'minute' | 'hour',
  rows: Map<string, number>,
): Promise<void> {
  if (rows.size === 0) return;
  const cols: string[][] = [[], [], [], [], [], []];
  for (const [k, n] of rows) {
    const [brand, at, key, surface, outcome] = k.split('\t') as [
      string,
      string,
      string,
      string,
      string,
    ];
    cols[0]!.push(brand);
    cols[1]!.push(key);
    cols[2]!.push(at);
    cols[3]!.push(surface);
    cols[4]!.push(outcome);
    cols[5]!.push(String(n));
  }
  await db.query(
    `insert into ${table} (brand_id, key_id, ${slice}, surface, outcome, count)
     select b, k, to_timestamp(s::bigint), su, o, n::bigint
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) as t(b, k, s, su, o, n)
     on conflict (brand_id, ${slice}, key_id, surface, outcome)
     do update set count = ${table}.count + excluded.count`,
    cols,
  );
}

async function appendLog(
  db: PoolClient,
  requests: RefusedRequest[],
  keys: Map<string, HashedKey>,
  serving: string,
): Promise<Set<string>> {
  const cols: (string | null)[][] = Array.from({ length: 11 }, () => []);
  const brands = new Set<string>();
  for (const r of requests) {
    for (const t of logTargets(r, keys, serving)) {
      brands.add(t.brandId);
      const row = [
        t.brandId,
        String(r.at),
        t.keyId,
        r.method,
        r.path,
        String(r.status),
        r.error_code,
        r.request_id,
        SURFACES[r.surface]!,
        t.reason,
        r.client_address ?? '',
      ];
      row.forEach((v, i) => cols[i]!.push(v));
    }
  }
  if (brands.size === 0) return brands;
  await db.query(
    `insert into request_log (brand_id, at, key_id, method, path, status, error_code, request_id, surface, reason,
                              client_address)
     select b, to_timestamp(a::bigint / 1000.0), k, m, p, s::smallint, c, r, su, re, ca
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                   $11::text[])
         as t(b, a, k, m, p, s, c, r, su, re, ca)`,
    cols,
  );
  return brands;
}
