import type { ReceiverNotice } from '@brand/proto/webhooks/v1';
import { formatTime } from '../views/format';

/** A value from outside on one line, bounded (a label in a subject, a URL in a body). */
function oneLine(value: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- line breaks and controls are what is removed
  const flat = value.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * The mail every owner of the brand gets, once, when the webhooks service disables one of its
 * receivers (410, or no 2xx within the failure window): which receiver, since when it failed,
 * why it was disabled and the last error, and a link to its page. Plain text; the values the
 * brand typed (label, URL) are kept to one line each.
 */
export function receiverDisabledMail(
  notice: ReceiverNotice,
  brandName: string,
  publicOrigin: string,
): { subject: string; text: string } {
  const label = oneLine(notice.receiver_label, 80) || notice.receiver_id;
  const brand = oneLine(brandName, 80);
  const link = `${publicOrigin}/brands/${notice.brand_id}/receivers/${notice.receiver_id}`;
  const row = (name: string, value: string) => (value ? [`${name}: ${value}`] : []);
  return {
    subject: `Receiver “${label}” was disabled: it gets no deliveries`,
    text: [
      `The webhooks service disabled the receiver “${label}”${brand ? ` of ${brand}` : ''}.`,
      '',
      ...row('Receiver', label),
      ...row('URL', oneLine(notice.receiver_url, 2048)),
      ...row('Disabled', formatTime(notice.disabled_at)),
      ...row('Why', oneLine(notice.reason, 500)),
      ...row('Failing since', formatTime(notice.failing_since)),
      ...row('Last error', oneLine(notice.last_error, 500)),
      '',
      'It gets no deliveries until an owner enables it again. Its pending deliveries are marked',
      'failed, never dropped: once it is enabled and answering, "Recover failed deliveries" on',
      'its page queues them again.',
      '',
      'Open the receiver:',
      link,
      '',
      'You get this mail as an owner of the brand: every owner gets one for each time the',
      'service disables a receiver. None is sent when an owner disables one.',
    ].join('\n'),
  };
}
