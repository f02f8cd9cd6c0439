import type { ServerResponse } from 'node:http';
import type { ResourceName } from '@brand/shared/resources';
import type { ApiIdentity } from '../../auth/identity';
import type { RecordsApi } from '../../clients/recordsClient';
import { sendJson } from '../../http/jsonResponse';
import { listPage } from '../../records/listPage';
import type { ListParams } from '../../records/listParams';

/**
 * The answer of an admitted, valid list request, on the express route and the fast path
 * alike: one page from the records service, written out as the records' bytes arrived (never
 * decoded and re-encoded). A conditional request (If-None-Match against the brand's change
 * version, issue 18) is decided here, before the page is asked for; admission's rate-limit
 * round trip is where that version would be read. Rejects with the records service's
 * AppError (invalid_cursor, service_unavailable, ...).
 */
export async function answerPage(
  records: RecordsApi,
  res: ServerResponse,
  identity: ApiIdentity,
  resource: ResourceName,
  params: ListParams,
  requestId: string,
): Promise<void> {
  const page = await listPage(records, identity, resource, params, requestId);
  sendJson(res, 200, [page.head, page.data, page.tail]);
}
