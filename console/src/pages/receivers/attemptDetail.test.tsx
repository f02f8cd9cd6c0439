import { attempt, delivery, html, viewer } from '../../../test/receiverFixtures';
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { AttemptDetail } from './attemptDetail';
import { DeliveryPage } from './deliveryPage';

const failed = attempt({
  number: 3,
  started_at: '2026-11-23T10:15:42.917Z',
  duration_ms: 188,
  status_code: 400,
  error_class: 'http_status',
  error_message: 'the receiver answered 400',
  detail: {
    request_headers: [
      { name: 'Content-Type', value: 'application/json' },
      { name: 'X-Service-Signature', value: `sha256=${'ab'.repeat(32)}` },
      { name: 'X-Service-Attempt', value: '3' },
    ],
    response_headers: [{ name: 'content-type', value: 'text/html' }],
    response_body: '<script>alert(1)</script><img src=x onerror=alert(2)>\u001b[31m\u202Egnp.exe',
    response_body_truncated: true,
    response_body_bytes: 52_428_800,
  },
});

describe('AttemptDetail', () => {
  it('shows the time to the second in UTC, the duration and the outcome in words', () => {
    const page = html(<AttemptDetail attempt={failed} index={2} />);
    expect(page).toContain('Attempt 3: 2026-11-23 10:15:42 UTC');
    expect(page).toContain('the receiver answered 400');
    expect(page).toContain('after 188 ms');
  });

  it('renders a hostile response body as inert text, invisible characters made visible', () => {
    const page = html(<AttemptDetail attempt={failed} index={2} />);
    expect(page).not.toMatch(/<script|<img/i);
    expect(page).toContain('&lt;script>alert(1)&lt;/script>&lt;img src=x onerror=alert(2)>');
    expect(page).toContain('\\u001b[31m\\u202egnp.exe');
    expect(page).toContain('of 50 MB; the rest is not kept');
  });

  it('shows the signature only as its first characters, even when the service sent it whole', () => {
    const page = html(<AttemptDetail attempt={failed} index={2} />);
    expect(page).toContain(`sha256=abababab…`);
    expect(page).not.toContain('ab'.repeat(12));
    expect(page).toContain('X-Service-Attempt');
  });

  it('says when the detail is not kept, why, and keeps the outcome', () => {
    const page = html(<AttemptDetail attempt={{ ...failed, detail: undefined }} index={0} />);
    expect(page).toContain('attempt detail is kept for a limited time after the event');
    expect(page).toContain('the receiver answered 400');
  });

  it('never says of an attempt a second old that its detail is "no longer" kept', () => {
    // a probe saw it of a fresh attempt read mid-write; the retention counts from the event, so
    // a fresh attempt without detail is one of an event older than the retention
    const fresh = attempt({
      number: 1,
      started_at: new Date(Date.now() - 1000).toISOString(),
      status_code: 200,
      detail: undefined,
    });
    const page = html(<AttemptDetail attempt={fresh} index={0} />);
    expect(page).not.toContain('no longer kept');
    expect(page).toContain(
      'not kept: attempt detail is kept for a limited time after the event, not after the attempt, and the event of this delivery is older than that.',
    );
  });

  it('names a connection failure in words when no response came', () => {
    const refused = attempt({
      status_code: 0,
      error_class: 'connection_error',
      error_message: 'connection refused by 203.0.113.7:443',
    });
    expect(html(<AttemptDetail attempt={refused} index={0} />)).toContain(
      'connection refused by 203.0.113.7:443',
    );
    expect(html(<AttemptDetail attempt={{ ...refused, error_message: '' }} index={0} />)).toContain(
      'connection errors',
    );
  });
});

describe('AttemptDetail: the response, by whether one came', () => {
  const detail = {
    request_headers: [],
    response_headers: [],
    response_body: '',
    response_body_truncated: false,
    response_body_bytes: 0,
  };

  it('says of a 2xx without the kept headers that it carried none, never that no response came', () => {
    const page = html(<AttemptDetail attempt={attempt({ status_code: 200, detail })} index={0} />);
    expect(page).toContain('The HTTP 200 answer carried none of the headers kept');
    expect(page).toContain('The response body was empty.');
    expect(page).not.toContain('No response came');
  });

  it('says that no response came when none did, and shows no empty body', () => {
    const refused = attempt({
      status_code: 0,
      error_class: 'connection_error',
      error_message: 'connection refused by 203.0.113.7:443',
      detail,
    });
    const page = html(<AttemptDetail attempt={refused} index={0} />);
    expect(page).toContain('No response came, so there are no response headers or body.');
    expect(page).not.toContain('carried none');
    expect(page).not.toContain('The response body was empty.');
  });
});

describe('DeliveryPage', () => {
  const pending = delivery({
    status: DeliveryStatus.DELIVERY_STATUS_PENDING,
    attempt_count: 3,
    next_attempt_at: '2026-11-23T10:45:00.000Z',
    completed_at: '',
    attempts: [attempt(), attempt({ number: 2 }), failed],
    payload: '{"id":"evt_one","type":"payout.paid","data":{"object":{"note":"<b>x</b>"}}}',
  });
  const rights = { canResend: true, canRetry: true, receiverEnabled: true };

  it('shows the exact event JSON sent, escaped, and the attempts newest first', () => {
    const page = html(
      <DeliveryPage viewer={viewer()} receiverLabel="Orders" delivery={pending} rights={rights} />,
    );
    const shown = /<pre class="body"><code>([^<]*)<\/code><\/pre><\/main>/.exec(page)?.[1];
    const unescaped = shown
      ?.replaceAll('&quot;', '"')
      .replaceAll('&lt;', '<')
      .replaceAll('&amp;', '&');
    expect(unescaped).toBe(pending.payload);
    expect(page).not.toContain('<b>');
    expect(page.indexOf('Attempt 3:')).toBeLessThan(page.indexOf('Attempt 1:'));
    expect(page).toContain('/static/poll.js');
  });

  it('says which attempt Retry now makes and what follows, before the click', () => {
    const page = html(
      <DeliveryPage
        viewer={viewer()}
        receiverLabel="Orders"
        delivery={{ ...pending, attempts_in_round: 3 }}
        rights={rights}
      />,
    );
    expect(page).toContain(
      'Retry now makes attempt 4 of 10 now instead of at 2026-11-23 10:45:00 UTC: it counts as one of the 10. If it fails, attempt 5 follows after the usual delay (about 2 hours).',
    );
    expect(page).toContain('Attempts: 3 of 10');
  });

  it('after a Retry now, says what became of the attempt it made', () => {
    const after = (d: Partial<typeof pending>, attempt = 4) =>
      html(
        <DeliveryPage
          viewer={viewer()}
          receiverLabel="Orders"
          delivery={{ ...pending, attempts_in_round: 3, ...d }}
          rights={rights}
          retriedAttempt={attempt}
        />,
      );
    // not made yet: queued, and the page follows it (poll.js swaps this region)
    expect(after({})).toContain('Retry queued: attempt 4 of 10 is due now');
    expect(after({})).toContain('id="retry-outcome" data-refresh');
    // made, refused: said, with what the schedule does next; the "due now" words are gone
    const refusedAgain = after({
      attempt_count: 4,
      attempts_in_round: 4,
      next_attempt_at: '2026-11-23T12:45:00.000Z',
      attempts: [...pending.attempts, { ...failed, number: 4 }],
    });
    expect(refusedAgain).toContain(
      'The retry failed: attempt 4 of 10 got the receiver answered 400. It counted as one of the 10; the schedule goes on with the next attempt at 2026-11-23 12:45:00 UTC.',
    );
    expect(refusedAgain).not.toContain('due now');
    // made, delivered
    const delivered = after({
      status: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
      attempt_count: 4,
      attempts_in_round: 4,
      next_attempt_at: '',
      attempts: [...pending.attempts, attempt({ number: 4, status_code: 204 })],
    });
    expect(delivered).toContain('The retry was delivered: attempt 4 of 10 got HTTP 204.');
    // the round's last: the delivery failed, and Resend is the way on
    const last = after(
      {
        status: DeliveryStatus.DELIVERY_STATUS_FAILED,
        attempt_count: 10,
        attempts_in_round: 10,
        next_attempt_at: '',
        attempts: [{ ...failed, number: 10 }],
      },
      10,
    );
    expect(last).toContain('The delivery has failed');
    expect(last).toContain('Resend sends it again as a new round');
  });

  it('offers Retry now on a delivery waiting to retry, only to those allowed, only while enabled', () => {
    const page = (r: typeof rights) =>
      html(<DeliveryPage viewer={viewer()} receiverLabel="Orders" delivery={pending} rights={r} />);
    expect(page(rights)).toContain('/deliveries/dlv_one/retry');
    expect(page({ ...rights, canRetry: false })).not.toContain('/retry');
    expect(page({ ...rights, receiverEnabled: false })).not.toContain('/retry');
    // A finished delivery is resent, not retried.
    const done = html(
      <DeliveryPage
        viewer={viewer()}
        receiverLabel="Orders"
        delivery={delivery()}
        rights={rights}
      />,
    );
    expect(done).toContain('/deliveries/dlv_one/resend');
    expect(done).not.toContain('/retry');
  });
});
