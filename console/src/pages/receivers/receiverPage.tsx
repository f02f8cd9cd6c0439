import type { Delivery, HealthWindow, Receiver } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { formatTime } from '../../views/format';
import { Csrf, Layout, Notice, type Viewer } from '../../views/layout';
import { deliveryStatusName } from './deliveryStatus';
import { isFiltered, type LogFilter } from './deliveryLogFilter';
import { DeliveryLogFilters, DeliveryLogPager } from './deliveryLogView';
import { DeliveryTable } from './deliveryView';
import { ReceiverGuide } from './guide';
import { HealthPanel, type HealthWindowName } from './healthPanel';
import { ReceiverHealthText } from './receiverHealthText';
import { RecoveryForm } from './recoveryView';
import { RotationGuide } from './rotationGuide';
import { RotationPanel } from './rotationView';
import { ReceiverFields, type ReceiverFormValues } from './view';

/** What the member may do on a receiver's page, from the permission table. */
export interface ReceiverRights {
  canManage: boolean;
  canTest: boolean;
  canResend: boolean;
  canRetry: boolean;
  canRecover: boolean;
  /** Start or cancel a rotation, and Test with its new secret. */
  canRotate: boolean;
  canSwitch: boolean;
  canSeeHealth: boolean;
}

/**
 * One receiver: its state and health, Test, the signing secret and its rotation, the
 * delivery log (retry now, resend), recovery, edit, enable/disable, remove, the guide.
 */
export function ReceiverPage(props: {
  viewer: Viewer;
  receiver: Receiver;
  deliveries: Delivery[];
  /** The log's filter and the cursor of its next (older) page ('' at the end). */
  log: { filter: LogFilter; nextCursor: string; retentionDays: number };
  health: HealthWindow[];
  healthWindow: HealthWindowName;
  rights: ReceiverRights;
  now: Date;
  error?: string;
  notice?: string;
  form?: ReceiverFormValues;
}) {
  const { viewer, receiver: r, rights } = props;
  const base = `/brands/${viewer.brandId}/receivers/${r.id}`;
  const events = r.events.map((e) => EVENT_TYPES.fromProto(e) ?? 'unknown');
  const polling =
    !!r.rotation?.test_delivery_id && deliveryStatusName(r.rotation.test_status) === 'pending';
  return (
    <Layout
      title={r.label}
      viewer={viewer}
      section="receivers"
      scripts={polling ? ['/static/poll.js'] : []}
    >
      <p>
        <a href={`/brands/${viewer.brandId}/receivers`}>All receivers</a>
      </p>
      <h1>{r.label}</h1>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      {!rights.canManage && (
        <Notice>
          Only brand owners change, test, rotate, recover and remove receivers. You are a{' '}
          {viewer.role} of this brand.
        </Notice>
      )}
      <table>
        <caption class="hint">Receiver details</caption>
        <tbody>
          <tr>
            <th scope="row">URL</th>
            <td>
              <code>{r.url}</code>
            </td>
          </tr>
          <tr>
            <th scope="row">Events</th>
            <td>{events.join(', ')}</td>
          </tr>
          <tr>
            <th scope="row">State</th>
            <td>
              {r.enabled
                ? 'enabled'
                : `disabled${r.disabled_by_service ? ' by the service' : ''}${r.disabled_at ? ` since ${formatTime(r.disabled_at)}` : ''}${r.disabled_reason ? `: ${r.disabled_reason}` : ''}`}
            </td>
          </tr>
          <tr>
            <th scope="row">Health</th>
            <td>
              <ReceiverHealthText receiver={r} />
            </td>
          </tr>
          <tr>
            <th scope="row">Last status</th>
            <td>{r.last_status ? `HTTP ${r.last_status}` : '—'}</td>
          </tr>
          <tr>
            <th scope="row">Last delivery</th>
            <td>{r.last_delivery_at ? formatTime(r.last_delivery_at) : 'never'}</td>
          </tr>
          <tr>
            <th scope="row">Added</th>
            <td>
              {formatTime(r.created_at)} by {r.created_by || 'operator'}
            </td>
          </tr>
        </tbody>
      </table>
      {rights.canTest && (
        <section aria-labelledby="test">
          <h2 id="test">Send a test delivery</h2>
          <p class="hint">
            Queues one delivery marked <code>"test": true</code> with sample data. It creates no
            business event, and queued is not delivered: the result appears below as it happens.
          </p>
          <form class="actions" method="post" action={`${base}/test`}>
            <Csrf token={viewer.csrfToken} />
            <label for="test-event">Event type</label>
            <select id="test-event" name="event_type">
              {events.map((e) => (
                <option value={e}>{e}</option>
              ))}
            </select>
            <button type="submit">Test</button>
          </form>
        </section>
      )}
      {rights.canSeeHealth && (
        <HealthPanel base={base} windows={props.health} selected={props.healthWindow} backlog={r} />
      )}
      <section aria-labelledby="log">
        <h2 id="log">Delivery log</h2>
        {props.log.retentionDays > 0 && (
          <p class="hint">
            Deliveries are kept {props.log.retentionDays} days after their event, then removed a
            week at a time: the log reaches back that far.
          </p>
        )}
        <DeliveryLogFilters base={base} filter={props.log.filter} health={props.healthWindow} />
        <DeliveryTable
          viewer={viewer}
          receiverId={r.id}
          deliveries={props.deliveries}
          filtered={isFiltered(props.log.filter) || !!props.log.filter.cursor}
          rights={{
            canResend: rights.canResend,
            canRetry: rights.canRetry,
            receiverEnabled: r.enabled,
          }}
        />
        <DeliveryLogPager
          base={base}
          filter={props.log.filter}
          health={props.healthWindow}
          nextCursor={props.log.nextCursor}
          shown={props.deliveries.length}
        />
      </section>
      {rights.canRecover && <RecoveryForm viewer={viewer} receiver={r} now={props.now} />}
      <RotationPanel
        viewer={viewer}
        receiver={r}
        events={events}
        canRotate={rights.canRotate}
        canSwitch={rights.canSwitch}
        now={props.now}
      />
      {rights.canManage && (
        <section aria-labelledby="edit">
          <h2 id="edit">Edit</h2>
          <ReceiverFields
            viewer={viewer}
            action={`${base}/edit`}
            values={props.form ?? { url: r.url, label: r.label, events }}
            submit="Save changes"
          />
          <h2>Enable, disable or remove</h2>
          <div class="actions">
            <form method="post" action={`${base}/${r.enabled ? 'disable' : 'enable'}`}>
              <Csrf token={viewer.csrfToken} />
              <button type="submit" class="secondary">
                {r.enabled ? 'Disable' : 'Enable'}
              </button>
            </form>
            <a href={`${base}/remove`}>Remove…</a>
          </div>
          <p class="hint">
            Disabled receivers get no deliveries; enabling one clears its failure count.
          </p>
        </section>
      )}
      <ReceiverGuide receiver={r} />
      <RotationGuide receiver={r} />
    </Layout>
  );
}
