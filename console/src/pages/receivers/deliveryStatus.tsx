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

/** Pending is said plainly: queued is not delivered (docs/contract.md#test-deliveries). */
export function DeliveryStatusText(props: { delivery: Delivery }) {
  const name = deliveryStatusName(props.delivery.status);
  const text =
    name === 'succeeded'
      ? 'Delivered: the receiver answered 2xx'
      : name === 'failed'
        ? 'Failed'
        : props.delivery.attempt_count === 0
          ? 'Queued, not delivered yet'
          : 'Waiting to retry';
  return <span class={`status-${name}`}>{text}</span>;
}
