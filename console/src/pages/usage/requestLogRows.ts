import type { ListRequestLogRequest, ListRequestLogResponse } from '@brand/proto/access/v1/usage';
import type { ExportRow } from '@brand/shared/export';
import { surfaceOf } from './usageSeries';

/** The request log's export columns; the reason columns only for those who may read them. */
export const REQUEST_COLUMNS = [
  'at',
  'method',
  'path',
  'status',
  'error_code',
  'request_id',
  'key_id',
  'key_name',
  'key_prefix',
  'surface',
  'id',
  // where the request came from (issue 63)
  'client_address',
] as const;
export const REASON_COLUMNS = ['reason', 'reason_at', 'reason_by'] as const;

/**
 * Every entry of the filtered log from `page_token` on, newest first, read a page of 200 at
 * a time (the log's own keyset cursor), as export rows.
 */
export async function* requestLogRows(
  list: (req: ListRequestLogRequest) => Promise<ListRequestLogResponse>,
  request: Omit<ListRequestLogRequest, 'page_size'>,
): AsyncGenerator<ExportRow> {
  let token = request.page_token;
  do {
    const page = await list({ ...request, page_size: 200, page_token: token });
    for (const e of page.entries) yield { ...e, surface: surfaceOf(e.surface) };
    token = page.next_page_token;
  } while (token !== '');
}
