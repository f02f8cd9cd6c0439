import { AppError } from '../errors/appError';
import type { Pool } from '../db/pool';
import { selectActivityPage, type ActivityPosition, type ActivityRow } from './activityRepo';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ACTIVITY_ID = /^act_[A-Za-z0-9]{1,64}$/;
const BRAND_ID = /^br_[A-Za-z0-9]{1,64}$/;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

/**
 * Page tokens are the last row's exact (created_at, id), base64url. Not signed: the brand
 * comes from the request (checked against the caller), so a forged token only moves the
 * starting point within a log the caller may read anyway.
 */
function encodeToken(last: ActivityPosition): string {
  return Buffer.from(JSON.stringify([last.created_at, last.id]), 'utf8').toString('base64url');
}

function decodeToken(token: string): ActivityPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2) {
      const [createdAt, id] = value as unknown[];
      if (typeof createdAt === 'string' && TIMESTAMP.test(createdAt)) {
        if (typeof id === 'string' && ACTIVITY_ID.test(id)) return { created_at: createdAt, id };
      }
    }
  } catch {
    // fall through: not JSON
  }
  throw new AppError('invalid_cursor', 'page_token is not a token this listing issued.');
}

/**
 * The ListActivity RPC of every service: validates the request (page_size 0 means 50,
 * otherwise 1..200: invalid_parameter; a bad token: invalid_cursor) and reads one page,
 * newest first, with next_page_token only when the page is full. The caller authorizes
 * the brand first.
 */
export async function listActivity(
  pool: Pool,
  req: { brand_id: string; page_size: number; page_token: string },
): Promise<{ entries: ActivityRow[]; next_page_token: string }> {
  if (!BRAND_ID.test(req.brand_id)) {
    throw new AppError('validation_failed', 'brand_id: must be a brand id (br_...).', {
      details: [{ field: 'brand_id', message: 'must be a brand id (br_...)' }],
    });
  }
  const limit = req.page_size === 0 ? DEFAULT_PAGE_SIZE : req.page_size;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new AppError('invalid_parameter', `page_size must be 1..${MAX_PAGE_SIZE}.`);
  }
  const after = req.page_token === '' ? undefined : decodeToken(req.page_token);
  const entries = await selectActivityPage(pool, { brandId: req.brand_id, limit, after });
  const last = entries.at(-1);
  return {
    entries,
    next_page_token: entries.length === limit && last ? encodeToken(last) : '',
  };
}
