import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';

/** The words receivers' and deliveries' views share: event types, statuses, absent values. */
export const eventName = (value: number): string => EVENT_TYPES.fromProto(value) ?? 'unspecified';

const STATUS_WORDS: Record<number, string> = {
  [DeliveryStatus.DELIVERY_STATUS_PENDING]: 'pending',
  [DeliveryStatus.DELIVERY_STATUS_SUCCEEDED]: 'succeeded',
  [DeliveryStatus.DELIVERY_STATUS_FAILED]: 'failed',
};
export const statusWord = (value: number): string => STATUS_WORDS[value] ?? 'unspecified';
export const orNull = (v: string): string | null => (v === '' ? null : v);
export const statusOrNull = (v: number): number | null => (v === 0 ? null : v);

/**
 * Text from a receiver (a response body, a header) made safe for a terminal: control
 * characters other than newline and tab (an escape sequence could rewrite the screen) are
 * shown as \xNN.
 */
export function terminalSafe(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
