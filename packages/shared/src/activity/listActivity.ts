import { AppError } from '../errors/appError';
import type { Pool } from '../db/pool';
import { decodeActivityCursor, encodeActivityCursor } from './activityCursor';
import { parseActivityFilters } from './activityQuery';
import { selectActivityPage } from './activityRepo';
import type { ActivityFilterFields, ActivityRow } from './activityTypes';

const BRAND_ID = /^br_[A-Za-z0-9]{1,64}$/;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

/**
 * The ListActivity RPC of every service: validates the request (page_size 0 means 50,
 * otherwise 1..200: invalid_parameter; a bad token: invalid_cursor; a bad filter:
 * validation_failed; a token of another brand or other filters: invalid_cursor) and reads one page, newest first, with next_page_token only when the
 * page is full. The caller authorizes the brand first.
 */
export async function listActivity(
  pool: Pool,
  req: { brand_id: string; page_size: number; page_token: string } & ActivityFilterFields,
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
  const filters = parseActivityFilters(req);
  const listing = { brandId: req.brand_id, filters };
  const after = req.page_token === '' ? undefined : decodeActivityCursor(listing, req.page_token);
  const entries = await selectActivityPage(pool, { brandId: req.brand_id, limit, after, filters });
  const last = entries.at(-1);
  return {
    entries,
    next_page_token: entries.length === limit && last ? encodeActivityCursor(listing, last) : '',
  };
}
