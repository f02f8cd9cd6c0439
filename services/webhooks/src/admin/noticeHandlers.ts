import type { WebhooksServiceServer } from '@brand/proto/webhooks/v1';
import type { Pool } from '@brand/shared/db';
import type { RpcBuilder } from '@brand/shared/grpc';
import { ackReceiverNotice, claimReceiverNotices } from '../notices/noticeService';
import { toNotice } from './toProto';

/**
 * The disable notices' outbox, for the console's mailer only (the console credential, no
 * member: it mails every owner of each notice's brand, then acknowledges).
 */
export function noticeHandlers(
  deps: { pool: Pool },
  rpc: RpcBuilder,
): Pick<WebhooksServiceServer, 'claimReceiverNotices' | 'ackReceiverNotice'> {
  return {
    claimReceiverNotices: rpc.console('ClaimReceiverNotices', async (req) => {
      const notices = await claimReceiverNotices(deps, {
        limit: req.limit,
        leaseMs: req.lease_ms,
      });
      return { notices: notices.map(toNotice) };
    }),

    ackReceiverNotice: rpc.console('AckReceiverNotice', async (req) => {
      await ackReceiverNotice(deps, { id: req.id });
      return {};
    }),
  };
}
