import { ReceiverNoticeKind, type ReceiverNotice } from '@brand/proto/webhooks/v1';
import { factRow as row, noticeMailParts } from './noticeMailParts';
import { oneLine } from './oneLine';

/**
 * The owners' mail about an audit stream (issue 63): the delivery engine writes the same three
 * notices for a stream as for a receiver (failing, recovered, disabled: never per attempt), and
 * this says them in a stream's words, with a link to the stream's page.
 */
export function auditStreamNoticeMail(
  notice: ReceiverNotice,
  brandName: string,
  publicOrigin: string,
): { subject: string; text: string } {
  const { label, of, failures, failingFacts, recoveredFacts, disabledFacts } = noticeMailParts(
    notice,
    brandName,
  );
  const facts = [
    ...row('Audit stream', label),
    ...row('Destination', oneLine(notice.receiver_url, 2048)),
  ];
  const footer = [
    '',
    'Open the audit stream:',
    `${publicOrigin}/brands/${notice.brand_id}/audit-streams/${notice.receiver_id}`,
    '',
    'You get this mail as an owner of the brand: once when a stream starts failing, once when',
    'it recovers, and once if the service disables it; never for each attempt.',
  ];
  switch (notice.kind) {
    case ReceiverNoticeKind.RECEIVER_NOTICE_KIND_FAILING:
      return {
        subject: `Audit stream “${label}” is failing: entries are waiting`,
        text: [
          `The audit stream “${label}”${of} is failing: ${failures}.`,
          '',
          ...facts,
          ...failingFacts,
          '',
          'Nothing is lost: the audit entries wait, in order, and are tried again on the schedule.',
          'As soon as the destination answers 2xx again, everything waiting is sent, oldest first,',
          'with no action needed (a Test on its page tries at once). If it stays down for 5 days',
          'the service disables it.',
          ...footer,
        ].join('\n'),
      };
    case ReceiverNoticeKind.RECEIVER_NOTICE_KIND_RECOVERED:
      return {
        subject: `Audit stream “${label}” recovered: it answers again`,
        text: [
          `The audit stream “${label}”${of} answered 2xx again after ${failures}.`,
          '',
          ...facts,
          ...recoveredFacts,
          '',
          'The entries that waited during the outage are being sent now, oldest first.',
          ...footer,
        ].join('\n'),
      };
    default:
      return {
        subject: `Audit stream “${label}” was disabled: it gets no entries`,
        text: [
          `The webhooks service disabled the audit stream “${label}”${of}.`,
          '',
          ...facts,
          ...disabledFacts,
          '',
          'Its entries are kept: enable it again on its page once the destination answers, and it',
          'goes on from the first entry it was not sent, in order.',
          ...footer,
        ].join('\n'),
      };
  }
}
