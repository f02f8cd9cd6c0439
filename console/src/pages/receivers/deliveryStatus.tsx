import type { Delivery } from '@brand/proto/webhooks/v1';
import { DeliveryStatus } from '@brand/proto/webhooks/v1';

export type DeliveryState = 'pending' | 'succeeded' | 'failed';

export function deliveryStatusName(s: DeliveryStatus): DeliveryState {
  if (s === DeliveryStatus.DELIVERY_STATUS_SUCCEEDED) return 'succeeded';
  if (s === DeliveryStatus.DELIVERY_STATUS_FAILED) return 'failed';
  return 'pending';
}

/** A pending delivery that has been attempted and waits for its next try: "Retry now" applies. */
export function isWaitingToRetry(d: Delivery): boolean {
  return deliveryStatusName(d.status) === 'pending' && d.attempt_count > 0;
}

/**
 * Pending is said plainly: queued is not delivered (docs/contract.md#test-deliveries). `short`
 * is for a line of a log, where the column says the rest ("Delivered", "Queued").
 */
export function DeliveryStatusText(props: { delivery: Delivery; short?: boolean }) {
  const name = deliveryStatusName(props.delivery.status);
  const text =
    name === 'succeeded'
      ? props.short
        ? 'Delivered'
        : 'Delivered: the receiver answered 2xx'
      : name === 'failed'
        ? 'Failed'
        : props.delivery.attempt_count === 0
          ? props.short
            ? 'Queued'
            : 'Queued, not delivered yet'
          : 'Waiting to retry';
  return <span class={`status-${name}`}>{text}</span>;
}
