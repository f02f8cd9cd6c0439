import { ReceiverNoticeKind, type ReceiverNotice } from '@brand/proto/webhooks/v1';
import { factRow as row, noticeMailParts } from './noticeMailParts';
import { oneLine } from './oneLine';
import { auditStreamNoticeMail } from './auditStreamNoticeMail';

/**
 * The mail every owner of the brand gets, once per notice: when a receiver starts failing (a
 * run of failures crossed the threshold: RECEIVER_FAILING_ALERT_AFTER_*), when it recovers
 * (a 2xx ended that run), and when the webhooks service disables it (410, or no 2xx within
 * the failure window). What happened in words, since when, the last error, and a link to
 * the receiver's page. Plain text; the values the brand typed (label, URL) are kept to one
 * line each.
 */
export function receiverNoticeMail(
  notice: ReceiverNotice,
  brandName: string,
  publicOrigin: string,
): { subject: string; text: string } {
  // an audit stream is a receiver of the delivery engine: its notices, in its words (issue 63)
  if (notice.receiver_id.startsWith('aus_'))
    return auditStreamNoticeMail(notice, brandName, publicOrigin);
  const { label, of, failures, failingFacts, recoveredFacts, disabledFacts } = noticeMailParts(
    notice,
    brandName,
  );
  const link = `${publicOrigin}/brands/${notice.brand_id}/receivers/${notice.receiver_id}`;
  const facts = [...row('Receiver', label), ...row('URL', oneLine(notice.receiver_url, 2048))];
  const footer = [
    '',
    'Open the receiver:',
    link,
    '',
    'You get this mail as an owner of the brand. A receiver that fails is mailed about once',
    'when it starts failing, once when it recovers, and once if the service disables it;',
    'never for each attempt.',
  ];
  switch (notice.kind) {
    case ReceiverNoticeKind.RECEIVER_NOTICE_KIND_FAILING:
      return {
        subject: `Receiver “${label}” is failing: deliveries are waiting`,
        text: [
          `The receiver “${label}”${of} is failing: ${failures}.`,
          '',
          ...facts,
          ...failingFacts,
          '',
          'Nothing is lost: its deliveries wait and are retried on the schedule. As soon as it',
          'answers 2xx again, everything waiting is sent at once, oldest first, with no action',
          'needed; "Recover" on its page sends what failed for good. If it stays down for 5',
          'days the service disables it.',
          ...footer,
        ].join('\n'),
      };
    case ReceiverNoticeKind.RECEIVER_NOTICE_KIND_RECOVERED:
      return {
        subject: `Receiver “${label}” recovered: it answers again`,
        text: [
          `The receiver “${label}”${of} answered 2xx again after ${failures}.`,
          '',
          ...facts,
          ...recoveredFacts,
          '',
          'The deliveries that waited during the outage are being sent now, oldest first. Its',
          'page shows how many still wait.',
          ...footer,
        ].join('\n'),
      };
    default:
      return {
        subject: `Receiver “${label}” was disabled: it gets no deliveries`,
        text: [
          `The webhooks service disabled the receiver “${label}”${of}.`,
          '',
          ...facts,
          ...disabledFacts,
          '',
          'It gets no deliveries until an owner enables it again. Its pending deliveries are marked',
          'failed, never dropped: once it is enabled and answering, "Recover" on its page queues',
          'them again.',
          ...footer,
        ].join('\n'),
      };
  }
}
