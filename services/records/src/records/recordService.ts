import { AppError } from '@brand/shared/errors';
import type { Pool } from '@brand/shared/db';
import {
  DEFAULT_LIMIT,
  isValidLimit,
  laterSince,
  LIST_PARAM_MESSAGES,
  normalizeSince,
  type ResourceName,
} from '@brand/shared/resources';
import type { CursorCodec } from './cursor';
import { selectPage, type RecordRow } from './recordRepo';

export interface ListRequest {
  brandId: string;
  resource: ResourceName;
  limit: number | undefined;
  cursor: string | undefined;
  since: string | undefined;
}

export interface ListResult {
  records: RecordRow[];
  /** Present exactly when the page is full (SPEC 4.1 rule 1). */
  nextCursor: string | undefined;
}

/**
 * Lists one page. The parameters are validated here too, not only at the gateway, because
 * the gRPC API is a contract of its own. A cursor continues the listing it came from,
 * including its since filter; a since passed alongside a cursor narrows it further.
 */
export async function listRecords(
  deps: { pool: Pool; cursors: CursorCodec },
  req: ListRequest,
): Promise<ListResult> {
  const limit = req.limit ?? DEFAULT_LIMIT;
  if (!isValidLimit(limit)) {
    throw new AppError('invalid_parameter', LIST_PARAM_MESSAGES.limit, {
      details: [{ field: 'limit', message: LIST_PARAM_MESSAGES.limit }],
    });
  }
  let since: string | undefined;
  if (req.since !== undefined) {
    since = normalizeSince(req.since);
    if (since === undefined) {
      throw new AppError('invalid_parameter', LIST_PARAM_MESSAGES.since, {
        details: [{ field: 'since', message: LIST_PARAM_MESSAGES.since }],
      });
    }
  }
  const binding = { brandId: req.brandId, resource: req.resource };
  const position = req.cursor === undefined ? undefined : deps.cursors.decode(binding, req.cursor);
  const effectiveSince = laterSince(since, position?.since);

  const records = await selectPage(deps.pool, {
    brandId: req.brandId,
    resource: req.resource,
    limit,
    since: effectiveSince,
    after: position,
  });
  const last = records[records.length - 1];
  const nextCursor =
    records.length === limit && last
      ? deps.cursors.encode(binding, {
          createdAt: last.created_at as string,
          id: last.id as string,
          since: effectiveSince,
        })
      : undefined;
  return { records, nextCursor };
}
