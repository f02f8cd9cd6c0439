import type { ReceiverNotice } from '@brand/proto/webhooks/v1';
import { formatTime } from '../views/format';
import { oneLine } from './oneLine';

/** A "Name: value" line, none when the value is empty. */
export const factRow = (name: string, value: string): string[] =>
  value ? [`${name}: ${value}`] : [];

/**
 * What the receiver's and the audit stream's notice mails say alike (a stream is a receiver
 * of the delivery engine): the label and brand kept to one line, the run of failures in words,
 * and the facts each kind of notice lists after the mail's own first lines.
 */
export function noticeMailParts(notice: ReceiverNotice, brandName: string) {
  const brand = oneLine(brandName, 80);
  const failingSince = factRow('Failing since', formatTime(notice.failing_since));
  const lastError = factRow('Last error', oneLine(notice.last_error, 500));
  return {
    label: oneLine(notice.receiver_label, 80) || notice.receiver_id,
    of: brand ? ` of ${brand}` : '',
    failures: `${notice.failures} failed ${notice.failures === 1 ? 'attempt' : 'attempts'} in a row`,
    failingFacts: [...failingSince, ...lastError],
    recoveredFacts: [...failingSince, ...factRow('Recovered', formatTime(notice.created_at))],
    disabledFacts: [
      ...factRow('Disabled', formatTime(notice.disabled_at)),
      ...factRow('Why', oneLine(notice.reason, 500)),
      ...failingSince,
      ...lastError,
    ],
  };
}
