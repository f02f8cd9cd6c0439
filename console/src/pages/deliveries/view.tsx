import type { Receiver } from '@brand/proto/webhooks/v1';
import { Layout, type Viewer } from '../../views/layout';
import { isFiltered } from '../receivers/deliveryLogFilter';
import type { DeliveryLogPage } from '../receivers/deliveryLogLoader';
import { DeliveryLogFilters, DeliveryLogPager } from '../receivers/deliveryLogView';
import { DeliveryTable, ScheduleHint } from '../receivers/deliveryView';

/**
 * Every delivery of the brand, newest first, across its receivers (issue 62): the delivery
 * log's filters, one line a delivery with its receiver, Retry now and Resend.
 */
export function DeliveriesPage(props: {
  viewer: Viewer;
  log: DeliveryLogPage;
  receivers: Receiver[];
  rights: { canResend: boolean; canRetry: boolean };
}) {
  const { viewer, log, rights } = props;
  const base = `/brands/${viewer.brandId}/deliveries`;
  const labels = new Map(props.receivers.map((r) => [r.id, r.label]));
  const enabled = new Set(props.receivers.filter((r) => r.enabled).map((r) => r.id));
  return (
    <Layout title="Deliveries" viewer={viewer} section="deliveries">
      <h1>Deliveries</h1>
      <p class="hint">
        Every delivery to every receiver of the brand, newest first
        {log.retentionDays !== undefined && <>, kept {log.retentionDays} days after its event</>}.
        Each delivery's page has its attempts; each receiver's page has its own log, its recovery
        and its health.
      </p>
      <DeliveryLogFilters base={base} filter={log.filter} refused={log.refusal?.message} />
      <DeliveryTable
        viewer={viewer}
        deliveries={log.deliveries}
        filtered={isFiltered(log.filter) || !!log.filter.cursor}
        refused={!!log.refusal}
        receiverLabels={labels}
        rights={(d) => ({ ...rights, receiverEnabled: enabled.has(d.receiver_id) })}
      />
      <DeliveryLogPager
        base={base}
        filter={log.filter}
        nextCursor={log.nextCursor}
        shown={log.deliveries.length}
      />
      {(rights.canRetry || rights.canResend) && <ScheduleHint />}
    </Layout>
  );
}
