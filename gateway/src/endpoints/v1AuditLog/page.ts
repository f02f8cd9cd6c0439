import type { ServerResponse } from 'node:http';
import type { ApiIdentity } from '../../auth/identity';
import type { AuditLogApi } from '../../clients/auditLogClient';
import { sendJson } from '../../http/jsonResponse';
import type { AuditLogParams } from './input';

/**
 * One page of the brand's audit log in the list envelope: `data` holds the entries as the
 * webhooks service stored them (passed through, never decoded), `next_cursor` newest first on
 * a full page, `next_after` when following, and `head` always. Rejects with the service's
 * AppError (invalid_cursor, position_beyond_head, service_unavailable).
 */
export async function answerAuditLogPage(
  audit: AuditLogApi,
  res: ServerResponse,
  request: { identity: ApiIdentity; params: AuditLogParams; requestId: string },
): Promise<void> {
  const { identity, params } = request;
  const page = await audit.listAuditLog(
    {
      brand_id: identity.brandId,
      limit: params.limit ?? 0,
      cursor: params.cursor ?? '',
      after: params.after,
      kind: params.kind ?? '',
    },
    request.requestId,
  );
  const next =
    params.after !== undefined
      ? `,"next_after":${page.next_after ?? params.after}`
      : page.next_cursor
        ? `,"next_cursor":${JSON.stringify(page.next_cursor)}`
        : '';
  sendJson(
    res,
    200,
    `{"resource":"audit_log","count":${page.entries_json.length},"data":[${page.entries_json.join(',')}]${next},"head":${page.head}}`,
  );
}
