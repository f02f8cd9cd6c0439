import type { ConsoleClients } from '../clients/consoleClients';
import type { NoticeSource } from './receiverNoticeTurn';

/**
 * The receiver notices as the console's own credential reaches them: no member is signed in
 * to ask, so these calls carry no member assertion, and each service accepts them from the
 * console alone (webhooks' ClaimReceiverNotices and AckReceiverNotice, records'
 * ListOwnerEmails).
 */
export function noticeSourceOf(clients: ConsoleClients): NoticeSource {
  return {
    claim: async (limit, leaseMs) =>
      (await clients.webhooks('claimReceiverNotices', { limit, lease_ms: leaseMs })).notices,
    ack: async (id) => {
      await clients.webhooks('ackReceiverNotice', { id });
    },
    owners: async (brandId) => {
      const r = await clients.sessions('listOwnerEmails', { brand_id: brandId });
      return { brandName: r.brand_name, emails: r.emails };
    },
  };
}
