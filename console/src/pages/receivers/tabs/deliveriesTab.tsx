import type { Delivery, Receiver } from '@brand/proto/webhooks/v1';
import type { Viewer } from '../../../views/layout';
import { isFiltered } from '../deliveryLogFilter';
import type { DeliveryLogPage } from '../deliveryLogLoader';
import { DeliveryLogFilters, DeliveryLogPager } from '../deliveryLogView';
import { DeliveryTable, ScheduleHint } from '../deliveryView';
import { receiverTabPath, type ReceiverRights } from '../receiverPage';
import { RetryWaitingForm } from '../retryWaitingView';

/** The deliveries tab: the receiver's delivery log with its filters and pages. */
export function DeliveriesTab(props: {
  viewer: Viewer;
  receiver: Receiver;
  rights: ReceiverRights;
  deliveries: Delivery[];
  /** The log's filter, the cursor of its next (older) page ('' at the end), its refusal. */
  log: DeliveryLogPage;
}) {
  const { viewer, receiver: r, rights, log } = props;
  const base = receiverTabPath(viewer.brandId, r.id, 'deliveries');
  return (
    <section aria-labelledby="log">
      <h2 id="log" class="visually-hidden">
        Delivery log
      </h2>
      {!!log.retentionDays && (
        <p class="hint">
          Deliveries are kept {log.retentionDays} days after their event, then removed a week at a
          time: the log reaches back that far. Each delivery's page has its attempts.
        </p>
      )}
      <DeliveryLogFilters base={base} filter={log.filter} refused={log.refusal?.message} />
      {rights.canRetry && <RetryWaitingForm viewer={viewer} receiver={r} compact />}
      <DeliveryTable
        viewer={viewer}
        deliveries={props.deliveries}
        filtered={isFiltered(log.filter) || !!log.filter.cursor}
        refused={!!log.refusal}
        rights={() => ({
          canResend: rights.canResend,
          canRetry: rights.canRetry,
          receiverEnabled: r.enabled,
        })}
      />
      <DeliveryLogPager
        base={base}
        filter={log.filter}
        nextCursor={log.nextCursor}
        shown={props.deliveries.length}
      />
      {(rights.canRetry || rights.canResend) && <ScheduleHint />}
    </section>
  );
}
