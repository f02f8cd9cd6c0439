import type { Attempt, Header } from '@brand/proto/webhooks/v1';
import { formatBytes, formatTimeToSecond } from '../../views/format';
import { visibleText } from '../../views/visibleText';
import { attemptOutcome } from './attemptWords';

/** How much of a signature the page shows: enough to tell two apart, never enough to use. */
const SIGNATURE_SHOWN = 'sha256='.length + 8;

/**
 * A header value as the page shows it. The service already shortens the signature; the
 * console shortens it again, so that a service that did not could not put it on a page.
 */
function shownHeaderValue(h: Header): string {
  if (h.name.toLowerCase() === 'x-service-signature' && h.value.length > SIGNATURE_SHOWN) {
    return `${h.value.slice(0, SIGNATURE_SHOWN)}…`;
  }
  return visibleText(h.value);
}

function HeaderTable(props: { caption: string; headers: Header[]; empty: string }) {
  if (props.headers.length === 0) return <p class="hint">{props.empty}</p>;
  return (
    <table class="headers">
      <caption>{props.caption}</caption>
      <tbody>
        {props.headers.map((h) => (
          <tr>
            <th scope="row">
              <code>{visibleText(h.name)}</code>
            </th>
            <td>
              <code>{shownHeaderValue(h)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What the page says about the size of a kept body. */
function bodyNote(detail: NonNullable<Attempt['detail']>): string {
  const kept = Buffer.byteLength(detail.response_body, 'utf8');
  if (!detail.response_body_truncated) return `The whole body (${formatBytes(kept)}).`;
  const total = detail.response_body_bytes;
  return total >= 0
    ? `The first ${formatBytes(kept)} of ${formatBytes(total)}; the rest is not kept.`
    : `The first ${formatBytes(kept)}; the rest (of unknown size) is not kept.`;
}

/**
 * One attempt, for debugging it: when (to the second, UTC), how long, the outcome in words,
 * the response headers that matter and the start of the body, and the request headers as
 * sent. The body is text from outside: it is rendered escaped, as text, never as markup.
 */
export function AttemptDetail(props: { attempt: Attempt; index: number }) {
  const { attempt: a } = props;
  const id = `attempt-${props.index}`;
  const detail = a.detail;
  return (
    <section class="attempt" aria-labelledby={id}>
      <h3 id={id}>
        Attempt {a.number}: {formatTimeToSecond(a.started_at)}
      </h3>
      <p>
        <span class={a.error_class ? 'status-failed' : 'status-succeeded'}>
          {visibleText(attemptOutcome(a))}
        </span>{' '}
        after {a.duration_ms} ms.
      </p>
      {detail ? (
        <>
          <h4>Response</h4>
          {a.status_code === 0 ? (
            // issue 62: "no response came, or none of …" was said of a 200 as well
            <p class="hint">No response came, so there are no response headers or body.</p>
          ) : (
            <>
              <HeaderTable
                caption="Response headers that matter"
                headers={detail.response_headers}
                empty={`The HTTP ${a.status_code} answer carried none of the headers kept (content-type, content-length, retry-after).`}
              />
              {detail.response_body === '' && !detail.response_body_truncated ? (
                <p class="hint">The response body was empty.</p>
              ) : (
                <>
                  <p class="hint">Response body, as text: {bodyNote(detail)}</p>
                  <pre class="body">
                    <code>{visibleText(detail.response_body)}</code>
                  </pre>
                </>
              )}
            </>
          )}
          <h4>Request</h4>
          <HeaderTable
            caption="Request headers as sent (the signature shortened)"
            headers={detail.request_headers}
            empty="The request headers were not kept."
          />
        </>
      ) : (
        // The service records an attempt with its detail in one statement and reads a delivery
        // as of one moment, so a missing detail is the retention's doing, which counts from the
        // event: a late attempt of an old event (a resend, a retry) has none either, seconds
        // after it was made. "No longer kept" said of one a second old read as a broken page.
        <p class="hint">
          The headers and body of this attempt are not kept: attempt detail is kept for a limited
          time after the event, not after the attempt, and the event of this delivery is older than
          that. The outcome above stays.
        </p>
      )}
    </section>
  );
}
