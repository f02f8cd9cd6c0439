import type { ReceiverNotice } from '@brand/proto/webhooks/v1';
import type { Logger } from '@brand/shared/logger';
import type { PollTurn } from '../background/pollLoop';
import { refusedForGood, sendCounted, type MailSender } from '../mail/mailSender';
import { receiverNoticeMail } from '../mail/receiverNoticeMail';

/** Where notices come from and go back to (the webhooks service), and whom to mail (records). */
export interface NoticeSource {
  /** Leases up to `limit` unsent notices for `leaseMs`; a notice not acknowledged comes back. */
  claim(limit: number, leaseMs: number): Promise<ReceiverNotice[]>;
  /** Marks a notice sent. */
  ack(id: string): Promise<void>;
  /** The brand's name and its current owners' addresses. */
  owners(brandId: string): Promise<{ brandName: string; emails: string[] }>;
}

export interface NoticeMailerOptions {
  source: NoticeSource;
  sender: MailSender;
  publicOrigin: string;
  log: Logger;
  /** How long a claim holds; longer than mailing a batch takes. */
  leaseMs: number;
  batchSize: number;
  /** Counts each mail (metrics). */
  onOutcome?: (outcome: 'sent' | 'failed') => void;
}

/** Notices claimed per turn; a full turn is followed by another at once. */
export const RECEIVER_NOTICE_BATCH = 20;

/** Notices whose owners were partly mailed, remembered so a retry mails only the others. */
const MAX_REMEMBERED = 10_000;

/**
 * Mails every owner of a brand, once per notice: a receiver started failing, recovered, or was
 * disabled by the webhooks service (receiverNoticeMail.ts).
 * Each turn leases a batch of notices (ClaimReceiverNotices), mails each owner (records'
 * ListOwnerEmails), then acknowledges the notice. Replicas are safe together: a leased
 * notice goes to one of them. A notice is acknowledged only once every owner's mail was
 * accepted; until then the lease runs out and it comes back, to this replica or another
 * (at least once), and this replica then mails only the owners it has not reached yet. An
 * address the mail server refuses for good (SMTP 5xx) counts as reached, and is logged.
 */
export function receiverNoticeTurn(opts: NoticeMailerOptions): PollTurn {
  const mailedTo = new Map<string, Set<string>>();

  async function deliver(notice: ReceiverNotice): Promise<void> {
    const { brandName, emails } = await opts.source.owners(notice.brand_id);
    const done = mailedTo.get(notice.id) ?? new Set<string>();
    mailedTo.set(notice.id, done);
    if (mailedTo.size > MAX_REMEMBERED) mailedTo.delete(mailedTo.keys().next().value!);
    const mail = receiverNoticeMail(notice, brandName, opts.publicOrigin);
    let failed = 0;
    for (const to of emails) {
      if (done.has(to)) continue;
      try {
        await sendCounted(opts.sender, { to, ...mail }, opts.onOutcome);
        done.add(to);
      } catch (err) {
        // A mailbox the server refuses for good would hold the notice back for ever.
        if (refusedForGood(err)) {
          done.add(to);
          opts.log.warn({ err, notice_id: notice.id }, 'the mail server refused a notice for good');
          continue;
        }
        failed += 1;
        opts.log.warn({ err, notice_id: notice.id }, 'receiver notice mail could not be sent');
      }
    }
    // Leave it leased: it comes back when the lease ends, and the others are not mailed again.
    if (failed > 0) return;
    if (emails.length === 0) {
      opts.log.warn({ notice_id: notice.id, brand_id: notice.brand_id }, 'no owner to mail');
    }
    await opts.source.ack(notice.id);
    mailedTo.delete(notice.id);
    opts.log.info(
      { notice_id: notice.id, receiver_id: notice.receiver_id, owners: emails.length },
      'receiver notice mailed',
    );
  }

  // Between notices it stops once `stopping()` says so: those left come back when their lease ends.
  return async (stopping) => {
    const notices = await opts.source.claim(opts.batchSize, opts.leaseMs);
    for (const notice of notices) {
      if (stopping()) break;
      await deliver(notice).catch((err: unknown) =>
        opts.log.warn({ err, notice_id: notice.id }, 'receiver notice not sent; it comes back'),
      );
    }
    return notices.length;
  };
}
