import { z } from 'zod';
import {
  UsageSurface,
  type GetUsageResponse,
  type ListRequestLogResponse,
} from '@brand/proto/access/v1/usage';
import { authorize, roleAllows, type Actor } from '@brand/shared/console';
import { isPaidTier, TIER_RATE_LIMITS } from '@brand/shared/enums';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { isCalendarInstant, rfc3339, type Pool } from '@brand/shared/db';
import { parseTimeRange } from '@brand/shared/export';
import { selectBrand } from '../access/brandRepo';
import { currentActor } from '../access/currentActor';
import { brandId } from '../access/inputs';
import { USAGE_BOUNDS } from './usageBounds';

const SURFACE = {
  rest: UsageSurface.USAGE_SURFACE_REST,
  assistant: UsageSurface.USAGE_SURFACE_ASSISTANT,
} as const;
type SurfaceName = keyof typeof SURFACE;
const keyId = z.string().regex(/^key_[A-Za-z0-9]{1,64}$/, 'must be a key id (key_...)');
const notFound = (what: string) => () => new AppError('not_found', `No ${what}.`);

/** The two windows of the usage page: 24 hours per minute, 7 days per hour. */
const WINDOWS = {
  '24h': { table: 'usage_minutes', column: 'minute', seconds: 60, slices: 24 * 60, unit: 'minute' },
  '7d': { table: 'usage_hours', column: 'hour', seconds: 3600, slices: 7 * 24, unit: 'hour' },
} as const;

const GetUsageInput = z
  .object({
    brandId: z.union([z.literal(''), brandId]),
    keyId: z.union([z.literal(''), keyId]),
    window: z.enum(['24h', '7d'], { message: 'must be 24h or 7d' }),
  })
  .refine((v) => v.brandId !== '' || v.keyId !== '', {
    message: 'brand_id or key_id is required',
    path: ['brand_id'],
  });

/**
 * A brand's (or one key's) counts over a window, with the brand's budget and every key's
 * share of the window, so an owner sees which key spends the budget. Every role may read it
 * (usage.read); another brand, or a key of another brand, is not_found.
 */
export async function getUsage(
  pool: Pool,
  actor: Actor,
  input: { brandId: string; keyId: string; window: string },
): Promise<GetUsageResponse> {
  const v = parseOrThrow(GetUsageInput, input);
  let brand = v.brandId;
  if (v.keyId !== '') {
    const r = await pool.query<{ brand_id: string }>(
      'select brand_id from api_keys where id = $1',
      [v.keyId],
    );
    const owner = r.rows[0]?.brand_id;
    // An unknown key and another brand's key get the same answer.
    if (owner === undefined || (brand !== '' && owner !== brand))
      throw notFound(`key ${v.keyId}`)();
    brand = owner;
  }
  authorize(await currentActor(pool, actor), 'usage.read', brand, notFound(`brand ${brand}`));
  const row = await selectBrand(pool, brand);
  if (!row) throw notFound(`brand ${brand}`)();
  const w = WINDOWS[v.window];
  const from = `(date_trunc('${w.unit}', now()) - interval '${w.slices - 1} ${w.unit}s')`;
  const keyFilter = v.keyId === '' ? '' : 'and u.key_id = $2';
  const params = v.keyId === '' ? [brand] : [brand, v.keyId];
  const [start, buckets, keys] = await Promise.all([
    pool.query<{ from: string }>(`select ${rfc3339(from)} as from`),
    pool.query<{ start: string; surface: SurfaceName; outcome: string; count: string }>(
      `select ${rfc3339(`u.${w.column}`)} as start, u.surface, u.outcome, sum(u.count)::text as count
         from ${w.table} u where u.brand_id = $1 and u.${w.column} >= ${from} ${keyFilter}
        group by u.${w.column}, u.surface, u.outcome order by u.${w.column}, u.surface, u.outcome`,
      params,
    ),
    pool.query<{
      key_id: string;
      name: string;
      prefix: string;
      surface: SurfaceName;
      outcome: string;
      count: string;
    }>(
      `select u.key_id, coalesce(k.name, '') as name, coalesce(k.prefix, '') as prefix, u.surface, u.outcome,
              sum(u.count)::text as count
         from ${w.table} u left join api_keys k on k.id = u.key_id
        where u.brand_id = $1 and u.${w.column} >= ${from} ${keyFilter}
        group by u.key_id, k.name, k.prefix, u.surface, u.outcome
        order by sum(u.count) desc, u.key_id, u.surface, u.outcome`,
      params,
    ),
  ]);
  return {
    brand_id: brand,
    window: v.window,
    bucket_seconds: w.seconds,
    from: start.rows[0]!.from,
    buckets: buckets.rows.map((b) => ({
      start: b.start,
      surface: SURFACE[b.surface],
      outcome: b.outcome,
      count: Number(b.count),
    })),
    limit_per_minute: isPaidTier(row.tier) ? TIER_RATE_LIMITS[row.tier] : 0,
    keys: keys.rows.map((k) => ({ ...k, surface: SURFACE[k.surface], count: Number(k.count) })),
  };
}

const ListInput = z.object({
  brandId,
  keyId: z.union([z.literal(''), z.literal('none'), keyId]),
  errorCode: z.string().regex(/^[a-z_]{0,64}$/, 'must be an error code'),
  pageSize: z.number().int().min(0).max(200),
  pageToken: z.union([
    z.literal(''),
    z
      .string()
      .regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z~\d{1,18}$/, 'is not a page token')
      .refine((t) => isCalendarInstant(t.split('~')[0]!), 'is not a page token'),
  ]),
  // Read by parseTimeRange (a day, a UTC time or RFC 3339); empty: unbounded.
  since: z.string().max(40).default(''),
  until: z.string().max(40).default(''),
});

/**
 * A brand's refused and failed requests, newest first, filtered by key ("none": without a
 * key of the brand), error code and time range (since inclusive, until exclusive), paged by
 * (time, id). Every role may read the log
 * (requests.read); the reason behind a 401 goes to owners and operators only
 * (requests.reasons): revoked (when and by whom), expired (when), a key of the other
 * environment, a key of another brand (never which), no key, an unknown key.
 */
export async function listRequestLog(
  pool: Pool,
  actor: Actor,
  input: z.input<typeof ListInput>,
): Promise<ListRequestLogResponse> {
  const v = parseOrThrow(ListInput, input);
  const who = await currentActor(pool, actor);
  authorize(who, 'requests.read', v.brandId, notFound(`brand ${v.brandId}`));
  if (!(await selectBrand(pool, v.brandId))) throw notFound(`brand ${v.brandId}`)();
  const reasons =
    who.kind === 'operator' ||
    (who.kind === 'member' && roleAllows(who.member.role, 'requests.reasons'));
  const size = v.pageSize === 0 ? 50 : v.pageSize;
  const where = ['l.brand_id = $1'];
  const params: unknown[] = [v.brandId];
  if (v.keyId === 'none') where.push('l.key_id is null');
  else if (v.keyId !== '') where.push(`l.key_id = $${params.push(v.keyId)}`);
  if (v.errorCode !== '') where.push(`l.error_code = $${params.push(v.errorCode)}`);
  const range = parseTimeRange({ since: v.since, until: v.until });
  if (range.since) where.push(`l.at >= $${params.push(range.since)}`);
  if (range.until) where.push(`l.at < $${params.push(range.until)}`);
  if (v.pageToken !== '') {
    const [at, id] = v.pageToken.split('~') as [string, string];
    where.push(`(l.at, l.id) < ($${params.push(at)}::timestamptz, $${params.push(id)}::bigint)`);
  }
  const r = await pool.query<{
    id: string;
    at: string;
    key_id: string | null;
    key_name: string | null;
    key_prefix: string | null;
    method: string;
    path: string;
    status: number;
    error_code: string;
    request_id: string;
    surface: SurfaceName;
    reason: string;
    revoked_at: string | null;
    revoked_by: string | null;
    expires_at: string | null;
    replaced_by: string | null;
    client_address: string;
  }>(
    `select l.id::text, l.client_address, ${rfc3339('l.at')} as at, l.key_id, k.name as key_name, k.prefix as key_prefix, l.method,
            l.path, l.status, l.error_code, l.request_id, l.surface, l.reason,
            ${rfc3339('k.revoked_at')} as revoked_at, k.revoked_by, ${KEY_EXPIRES_AT} as expires_at,
            r.name as replaced_by
       from request_log l left join api_keys k on k.id = l.key_id
       left join api_keys r on r.id = k.replaced_by
      where ${where.join(' and ')}
      order by l.at desc, l.id desc limit ${size + 1}`,
    params,
  );
  const rows = r.rows.slice(0, size);
  const last = rows[rows.length - 1];
  return {
    entries: rows.map((e) => {
      const reason = reasons ? e.reason : '';
      return {
        id: e.id,
        at: e.at,
        key_id: e.key_id ?? '',
        key_name: e.key_name ?? '',
        key_prefix: e.key_prefix ?? '',
        method: e.method,
        path: e.path,
        status: e.status,
        error_code: e.error_code,
        request_id: e.request_id,
        surface: SURFACE[e.surface],
        client_address: e.client_address,
        reason,
        reason_at:
          reason === 'revoked'
            ? (e.revoked_at ?? '')
            : reason === 'expired'
              ? (e.expires_at ?? '')
              : '',
        // revoked: who revoked it; expired: the name of the key that replaced it (a roll), if any
        reason_by:
          reason === 'revoked'
            ? (e.revoked_by ?? '')
            : reason === 'expired'
              ? (e.replaced_by ?? '')
              : '',
      };
    }),
    next_page_token: r.rows.length > size && last ? `${last.at}~${last.id}` : '',
    bound: USAGE_BOUNDS.requestLogPerBrand,
    retention_days: USAGE_BOUNDS.retentionDays,
  };
}

/** A key's expiry (migration 0010: key rolls) as RFC 3339. */
const KEY_EXPIRES_AT = rfc3339('k.expires_at');
