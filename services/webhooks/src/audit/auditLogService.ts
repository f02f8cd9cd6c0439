import type { ListAuditLogRequest, ListAuditLogResponse } from '@brand/proto/webhooks/v1/audit';
import type { CursorKeys } from '../cursorKeys';
import type { Pool } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { DEFAULT_LIMIT, isValidLimit } from '@brand/shared/resources';
import { decodeAuditCursor, encodeAuditCursor } from './auditCursor';
import { selectAuditPage } from './auditLogRepo';
import { withPosition } from './entryJson';

export interface AuditLogDeps {
  pool: Pool;
  /** cursorKeys("audit-log-cursor", …): the current secrets key signs, each verifies. */
  cursorKeys: CursorKeys;
  /** Told when entries were stored (the worker role of this process opens its streams' runs). */
  onStored?: () => void;
}

const BRAND_ID = /^br_[A-Za-z0-9]{1,64}$/;

function invalid(field: string, message: string): AppError {
  return new AppError('invalid_parameter', `${field}: ${message}`, {
    details: [{ field, message }],
  });
}

/**
 * One page of the brand's audit log (ListAuditLog; GET /api/v1/audit-log): newest first by
 * position, a signed next_cursor on a full page only (the contract's cursor rules); or, with
 * `after`, oldest first after that position with next_after: the page's last position when it
 * is full, else the head (everything up to it was read). An `after` beyond the head is
 * position_beyond_head, never an empty page to wait on. Entries pass through as stored JSON.
 */
export async function listAuditLog(
  deps: AuditLogDeps,
  req: ListAuditLogRequest,
): Promise<ListAuditLogResponse> {
  if (!BRAND_ID.test(req.brand_id)) throw invalid('brand_id', 'must be a brand id (br_...).');
  const limit = req.limit === 0 ? DEFAULT_LIMIT : req.limit;
  if (!isValidLimit(limit)) throw invalid('limit', 'must be a whole number from 1 to 200.');
  const kind = req.kind;
  if (kind !== '' && kind !== 'activity' && kind !== 'request')
    throw invalid('kind', 'must be activity or request.');
  if (req.cursor !== '' && req.after !== undefined) {
    throw invalid('after', 'cursor and after cannot be combined.');
  }
  const after = req.after;
  if (after !== undefined && (!Number.isSafeInteger(after) || after < 0)) {
    throw invalid('after', 'must be a position: a whole number, 0 or more.');
  }
  const before =
    req.cursor === ''
      ? undefined
      : decodeAuditCursor(deps.cursorKeys, req.brand_id, kind, req.cursor);
  const page = await selectAuditPage(deps.pool, {
    brandId: req.brand_id,
    limit,
    kind: kind === '' ? undefined : kind,
    direction: after !== undefined ? { after } : { before },
  });
  if (after !== undefined && after > page.head) {
    throw new AppError(
      'position_beyond_head',
      `after=${after} is beyond the head of this brand's audit log (${page.head}): it is no position this log gave. Follow from after=${page.head} for new entries only, or from after=0 for every entry kept.`,
      { details: [{ field: 'after', message: `beyond the head (${page.head})` }] },
    );
  }
  const full = page.entries.length === limit;
  const last = page.entries.at(-1);
  return {
    entries_json: page.entries.map((e) => withPosition(e.entry_json, e.seq)),
    next_cursor:
      after === undefined && full && last
        ? encodeAuditCursor(deps.cursorKeys, req.brand_id, kind, last.seq)
        : '',
    next_after: after === undefined ? undefined : full && last ? last.seq : page.head,
    head: page.head,
  };
}
