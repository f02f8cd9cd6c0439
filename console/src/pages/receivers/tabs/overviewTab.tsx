import type { HealthWindow, Receiver } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { formatTime } from '../../../views/format';
import type { Viewer } from '../../../views/layout';
import { HealthPanel, type HealthWindowName } from '../healthPanel';
import { lastAttemptWords } from '../lastAttempt';
import { receiverTabPath, type ReceiverRights } from '../receiverPage';

/** A receiver's state in words: enabled, or disabled by whom, since when and why. */
function receiverStateWords(r: Receiver): string {
  if (r.enabled) return 'enabled';
  const by = r.disabled_by_service ? ' by the service' : '';
  const since = r.disabled_at ? ` since ${formatTime(r.disabled_at)}` : '';
  return `disabled${by}${since}${r.disabled_reason ? `: ${r.disabled_reason}` : ''}`;
}

/** The overview tab: what the receiver is, and how it is doing (health, chart, backlog). */
export function OverviewTab(props: {
  viewer: Viewer;
  receiver: Receiver;
  rights: ReceiverRights;
  health: HealthWindow[];
  healthWindow: HealthWindowName;
}) {
  const { viewer, receiver: r } = props;
  const base = receiverTabPath(viewer.brandId, r.id, 'overview');
  const events = r.events.map((e) => EVENT_TYPES.fromProto(e) ?? 'unknown');
  return (
    <>
      <table class="details">
        <caption class="visually-hidden">Receiver details</caption>
        <tbody>
          <tr>
            <th scope="row">Events</th>
            <td>{events.join(', ')}</td>
          </tr>
          <tr>
            <th scope="row">State</th>
            <td>{receiverStateWords(r)}</td>
          </tr>
          <tr>
            <th scope="row">Last attempt</th>
            <td>{lastAttemptWords(r)}</td>
          </tr>
          <tr>
            <th scope="row">Signing secret</th>
            <td>
              {r.rotation ? (
                <a href={`${receiverTabPath(viewer.brandId, r.id, 'settings')}#rotation`}>
                  a rotation is pending
                </a>
              ) : (
                'one secret in force'
              )}
            </td>
          </tr>
          <tr>
            <th scope="row">Added</th>
            <td>
              {formatTime(r.created_at)} by {r.created_by || 'operator'}
            </td>
          </tr>
        </tbody>
      </table>
      {props.rights.canSeeHealth && (
        <HealthPanel
          base={base}
          windows={props.health}
          selected={props.healthWindow}
          backlog={r}
          backlogHref={`${receiverTabPath(viewer.brandId, r.id, 'deliveries')}?state=waiting`}
        />
      )}
    </>
  );
}
