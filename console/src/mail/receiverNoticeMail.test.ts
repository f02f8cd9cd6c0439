import { ReceiverNoticeKind, type ReceiverNotice } from '@brand/proto/webhooks/v1';
import { receiverNoticeMail } from './receiverNoticeMail';

const notice = (over: Partial<ReceiverNotice>): ReceiverNotice => ({
  id: 'rcn_1',
  brand_id: 'br_demo',
  receiver_id: 'rcv_orders',
  receiver_label: 'Order system',
  receiver_url: 'https://hooks.brand.test/orders',
  disabled_at: '',
  failing_since: '2026-11-23T09:14:00.000Z',
  reason: '',
  last_error: '503 from the receiver',
  kind: ReceiverNoticeKind.RECEIVER_NOTICE_KIND_FAILING,
  failures: 5,
  created_at: '2026-11-23T09:20:00.000Z',
  ...over,
});
const origin = 'https://console.brand.test';

describe('receiverNoticeMail', () => {
  it('says a receiver started failing, in words, with the link and that nothing is lost', () => {
    const mail = receiverNoticeMail(notice({}), 'Demo Brand', origin);
    expect(mail.subject).toBe('Receiver “Order system” is failing: deliveries are waiting');
    expect(mail.text).toContain('is failing: 5 failed attempts in a row');
    expect(mail.text).toContain('Failing since: 2026-11-23 09:14 UTC');
    expect(mail.text).toContain('Last error: 503 from the receiver');
    expect(mail.text).toContain('Nothing is lost');
    expect(mail.text).toContain(`${origin}/brands/br_demo/receivers/rcv_orders`);
  });

  it('says it recovered and that the backlog is being sent', () => {
    const mail = receiverNoticeMail(
      notice({ kind: ReceiverNoticeKind.RECEIVER_NOTICE_KIND_RECOVERED, failures: 12 }),
      'Demo Brand',
      origin,
    );
    expect(mail.subject).toBe('Receiver “Order system” recovered: it answers again');
    expect(mail.text).toContain('answered 2xx again after 12 failed attempts in a row');
    expect(mail.text).toContain('Recovered: 2026-11-23 09:20 UTC');
    expect(mail.text).toContain('being sent now, oldest first');
  });

  it('keeps the disable mail for a receiver the service disabled', () => {
    const mail = receiverNoticeMail(
      notice({
        kind: ReceiverNoticeKind.RECEIVER_NOTICE_KIND_DISABLED,
        disabled_at: '2026-11-28T09:14:00.000Z',
        reason: 'no 2xx since 2026-11-23T09:14:00.000Z',
      }),
      'Demo Brand',
      origin,
    );
    expect(mail.subject).toBe('Receiver “Order system” was disabled: it gets no deliveries');
    expect(mail.text).toContain('Disabled: 2026-11-28 09:14 UTC');
    expect(mail.text).toContain('Why: no 2xx since');
  });
});
