import {
  AuditLogServiceClient,
  type ListAuditLogRequest,
  type ListAuditLogResponse,
} from '@brand/proto/webhooks/v1/audit';
import { connectClient, createCaller } from '@brand/shared/grpc';

/** The brand's audit log, served by the webhooks process (issue 63). */
export interface AuditLogApi {
  listAuditLog(req: ListAuditLogRequest, requestId: string): Promise<ListAuditLogResponse>;
  close(): void;
}

/**
 * AuditLogService over one unary channel to the webhooks process: an integration's pulls of
 * its audit log are a few a minute, so they ride a plain call (the events feed's page streams
 * serve its thousands). createCaller adds the credential, the deadline and the error mapping.
 */
export function createAuditLogApi(
  address: string,
  settings: { deadlineMs: number; token: string },
): AuditLogApi {
  const client = connectClient(AuditLogServiceClient, address);
  const call = createCaller(client, settings);
  return {
    listAuditLog: (req, requestId) => call('listAuditLog', req, { requestId }),
    close: () => client.close(),
  };
}
