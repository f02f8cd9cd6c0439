import type { PreviewRecoveryResponse, Receiver } from '@brand/proto/webhooks/v1';
import { formatCount as count } from '../../views/counted';
import { formatTime } from '../../views/format';
import { Csrf, Layout, Notice, type Viewer } from '../../views/layout';
import { toUtcText, UtcTimeInput } from '../../views/utcTimeInput';
import { RECOVERY_MAX_AGE_MS, RECOVERY_MAX_PER_REQUEST } from '@brand/shared/webhooks';

/** The bounds of a recovery, said wherever one is asked for. */
const RECOVERY_BOUNDS = `Recovery reaches at most 14 days back and sends at most ${count(RECOVERY_MAX_PER_REQUEST)} deliveries per request.`;

const deliveries = (n: number) => `${count(n)} ${n === 1 ? 'delivery' : 'deliveries'}`;

/** Where a recovery starts by default: when the current failures began, else a day ago. */
function defaultSince(r: Receiver, now: Date): Date {
  const earliest = now.getTime() - RECOVERY_MAX_AGE_MS;
  const failing = r.failing_since ? Date.parse(r.failing_since) : Number.NaN;
  if (!Number.isNaN(failing) && failing >= earliest) return new Date(failing - (failing % 60_000));
  return new Date(now.getTime() - 24 * 3_600_000);
}

/**
 * "Recover since" on the receiver's page: a GET form (it changes nothing) that leads to the
 * preview, where the re-queue is confirmed. A disabled receiver gets nothing, so it says so.
 */
export function RecoveryForm(props: { viewer: Viewer; receiver: Receiver; now: Date }) {
  const { viewer, receiver: r, now } = props;
  const base = `/brands/${viewer.brandId}/receivers/${r.id}`;
  return (
    <section aria-labelledby="recover">
      <h2 id="recover">Recover deliveries since an outage</h2>
      <p class="hint">
        After an outage, send everything of this receiver since a time that was not delivered, in
        one action: deliveries that failed for good and those still waiting for their next retry,
        oldest first (the same event ids, so your receiver deduplicates them). A receiver that
        answers 2xx again catches up by itself as well. {RECOVERY_BOUNDS}
      </p>
      {r.enabled ? (
        <form class="actions" method="get" action={`${base}/recover`}>
          <UtcTimeInput
            id="recover-since"
            name="since"
            label="Since"
            value={toUtcText(defaultSince(r, now))}
            required
          />
          <button type="submit" class="secondary">
            Preview
          </button>
        </form>
      ) : (
        <p>This receiver is disabled: enable it first, then recover its deliveries.</p>
      )}
    </section>
  );
}

/**
 * What a recovery would do, before it is done: how many deliveries since the time were not
 * delivered (failed, and waiting for a retry), the bounds, and the button. The form carries a request id made here, so a double click or
 * a resubmitted form re-queues nothing twice.
 */
export function RecoveryPreviewPage(props: {
  viewer: Viewer;
  receiver: Receiver;
  since: Date;
  preview?: PreviewRecoveryResponse;
  requestId: string;
  canRecover: boolean;
  error?: string;
}) {
  const { viewer, receiver: r, preview } = props;
  const base = `/brands/${viewer.brandId}/receivers/${r.id}`;
  const back = `${base}/recovery`;
  const since = formatTime(props.since.toISOString());
  const max = preview?.max_per_request || RECOVERY_MAX_PER_REQUEST;
  return (
    <Layout title="Recover deliveries" viewer={viewer} section="receivers">
      <p>
        <a href={back}>Back to {r.label}</a>
      </p>
      <h1>Recover deliveries of “{r.label}”</h1>
      {props.error && <Notice tone="error">{props.error}</Notice>}
      {preview && (
        <p class="lead">
          {preview.failed + preview.waiting === 0
            ? `Every delivery since ${since} was delivered: there is nothing to recover.`
            : `Since ${since}: ${deliveries(preview.failed)} failed and ${deliveries(preview.waiting)} waiting for a retry.`}
        </p>
      )}
      <p>
        {RECOVERY_BOUNDS}
        {preview?.earliest_since &&
          ` The earliest time accepted now is ${formatTime(preview.earliest_since)}.`}{' '}
        Test deliveries are left out. Failed deliveries go out again as a new round of attempts of
        the same event; waiting ones get their next attempt now. All are signed with the receiver's
        current secret, sent oldest first at the receiver's usual pace, and follow the usual
        retries.
      </p>
      {preview && preview.failed + preview.waiting > preview.would_requeue && (
        <Notice tone="warn">
          This request sends the oldest {count(preview.would_requeue)} (at most {count(max)} per
          request); recover again afterwards for the other{' '}
          {count(preview.failed + preview.waiting - preview.would_requeue)}.
        </Notice>
      )}
      {!r.enabled && (
        <Notice tone="error">
          “{r.label}” is disabled, so recovery is refused: a disabled receiver gets no deliveries.
          Enable it in its settings first.
        </Notice>
      )}
      {props.canRecover && r.enabled && preview && preview.would_requeue > 0 && (
        <form method="post" action={`${base}/recover`}>
          <Csrf token={viewer.csrfToken} />
          <input type="hidden" name="since" value={props.since.toISOString()} />
          <input type="hidden" name="request_id" value={props.requestId} />
          <div class="actions">
            <button type="submit">Send {deliveries(preview.would_requeue)} now</button>
            <a href={back}>Cancel</a>
          </div>
        </form>
      )}
      {!props.canRecover && (
        <p class="hint">
          Only brand owners recover deliveries. You are a {viewer.role} of this brand.
        </p>
      )}
    </Layout>
  );
}
