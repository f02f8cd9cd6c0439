import { z } from 'zod';
import {
  decodeKeysetCursor,
  encodeKeysetCursor,
  rfc3339,
  type KeysetPosition,
  type Pool,
} from '@brand/shared/db';
import { parseOrThrow } from '@brand/shared/errors';
import { RESOURCE_TABLES } from '../records/resourceTables';
import { SELECT_LISTS, toRecordRow, type RecordRow } from '../records/recordRepo';

const SUBMISSION_ID = /^sub_[A-Za-z0-9]{1,64}$/;

const ListInput = z.object({
  brandId: z.string().regex(/^br_[A-Za-z0-9]{1,64}$/, 'must be a brand id (br_...)'),
  status: z.enum(['pending', 'approved', 'rejected']).optional(),
  limit: z.number().int().min(1, 'must be 1..200').max(200, 'must be 1..200'),
  cursor: z.string().optional(),
});

/**
 * One page of a brand's submissions for operators, newest first (keyset on created_at, id),
 * optionally of one status; pending ones are read by their own partial index
 * (submissions_pending), so what waits for review is found whatever the history holds.
 * ORDER BY names the table's columns: unqualified, `created_at` would be the select list's
 * formatted text, sorted row by row instead of read from the index (recordRepo.ts pageSql).
 */
export async function listSubmissions(
  pool: Pool,
  input: { brandId: string; status?: string; limit: number; cursor?: string },
): Promise<{ rows: RecordRow[]; nextCursor: string }> {
  const v = parseOrThrow(ListInput, input);
  const after: KeysetPosition | undefined = v.cursor
    ? decodeKeysetCursor(v.cursor, SUBMISSION_ID)
    : undefined;
  const res = await pool.query<Record<string, unknown> & { position_at: string; id: string }>(
    `select ${SELECT_LISTS.submissions}, ${rfc3339('created_at')} as position_at
     from submissions
     where brand_id = $1 and ($2::text is null or status = $2)
       and ($3::timestamptz is null or (created_at, id) < ($3::timestamptz, $4::text))
     order by submissions.created_at desc, submissions.id desc limit $5`,
    [v.brandId, v.status ?? null, after?.created_at ?? null, after?.id ?? null, v.limit],
  );
  const last = res.rows.at(-1);
  return {
    rows: res.rows.map((r) => toRecordRow(r, RESOURCE_TABLES.submissions.columns)),
    nextCursor:
      last && res.rows.length === v.limit
        ? encodeKeysetCursor({ created_at: last.position_at, id: last.id })
        : '',
  };
}
