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

  it('says when the detail is no longer kept, and keeps the outcome', () => {
    const page = html(<AttemptDetail attempt={{ ...failed, detail: undefined }} index={0} />);
    expect(page).toContain('no longer kept');
    expect(page).toContain('the receiver answered 400');
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
