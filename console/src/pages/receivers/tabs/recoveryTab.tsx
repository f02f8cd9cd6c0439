import type { Receiver } from '@brand/proto/webhooks/v1';
import type { Viewer } from '../../../views/layout';
import { OwnersOnly } from '../../../views/ownersOnly';
import type { ReceiverRights } from '../receiverPage';
import { RecoveryForm } from '../recoveryView';
import { RetryWaitingForm } from '../retryWaitingView';

/** The recovery tab: after an outage, retry what waits now, and recover what failed. */
export function RecoveryTab(props: {
  viewer: Viewer;
  receiver: Receiver;
  rights: ReceiverRights;
  now: Date;
}) {
  const { viewer, receiver: r, rights } = props;
  return (
    <>
      {!rights.canRetry && !rights.canRecover && (
        <OwnersOnly viewer={viewer} what="retry and recover deliveries" />
      )}
      {rights.canRetry && <RetryWaitingForm viewer={viewer} receiver={r} />}
      {rights.canRecover && <RecoveryForm viewer={viewer} receiver={r} now={props.now} />}
    </>
  );
}
