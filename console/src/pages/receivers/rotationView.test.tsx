import { DeliveryStatus, type SecretRotation } from '@brand/proto/webhooks/v1';
import { html, receiver, viewer } from '../../../test/receiverFixtures';
import { RotationGuide } from './rotationGuide';
import { RotatedSecretPage, RotationPanel } from './rotationView';

const now = new Date('2026-11-23T12:00:00.000Z');
const rotation = (over: Partial<SecretRotation> = {}): SecretRotation => ({
  created_at: '2026-11-23T11:30:00.000Z',
  switch_at: '',
  created_by: 'owner@brand.test',
  test_delivery_id: '',
  test_status: DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED,
  test_last_status: 0,
  test_last_error: '',
  ...over,
});
const panel = (r = receiver(), rights = { canRotate: true, canSwitch: true }) =>
  html(
    <RotationPanel
      viewer={viewer()}
      receiver={r}
      events={['payout.paid']}
      now={now}
      onceToken="mk1.once"
      {...rights}
    />,
  );

describe('RotationPanel', () => {
  it('offers owners a rotation, and shows others nothing to press', () => {
    expect(panel()).toContain('action="/brands/br_demo/receivers/rcv_orders/rotate"');
    // a double click rotates once and shows that secret (forms/submitOnce.ts)
    expect(panel()).toContain('<input type="hidden" name="_once" value="mk1.once"/>');
    const readOnly = panel(receiver(), { canRotate: false, canSwitch: false });
    expect(readOnly).toContain('Signing secret');
    expect(readOnly).not.toContain('<form');
  });

  it('while pending: test with the new secret, switch now/in 1 h/in 24 h/at a time (UTC, 7 days at most), cancel', () => {
    const page = panel(receiver({ rotation: rotation() }));
    expect(page).toContain('Deliveries are still signed with the current secret');
    expect(page).toContain('No switch is scheduled yet');
    expect(page).toContain('name="with_new_secret" value="1"');
    for (const when of ['now', '1h', '24h', 'at']) expect(page).toContain(`value="${when}"`);
    expect(page).not.toContain('/rotate"');
    expect(page).toContain('/cancel-rotation');
    expect(page).toContain('Not tested yet');
    expect(page).toContain('data-poll="done"');
  });

  it('takes the switch time typed in UTC like the other time fields, not a datetime-local picker', () => {
    const page = panel(receiver({ rotation: rotation() }));
    expect(page).not.toContain('datetime-local');
    const field = /<input[^>]*name="at"[^>]*>/.exec(page)?.[0] ?? '';
    expect(field).toContain('type="text"');
    expect(field).toContain('placeholder="YYYY-MM-DD HH:MM"');
    expect(page).toContain('A time in UTC, such as 2026-11-24 12:00, at most 7 days ahead.');
  });

  it('starts the switch form on a choice: now once the new secret is accepted, else in 24 h (issue 35)', () => {
    const checked = (page: string) =>
      [...page.matchAll(/<input[^>]*name="when"[^>]*>/g)]
        .filter((m) => / checked/.test(m[0]))
        .map((m) => /value="([^"]+)"/.exec(m[0])?.[1]);
    expect(checked(panel(receiver({ rotation: rotation() })))).toEqual(['24h']);
    const accepted = rotation({
      test_delivery_id: 'dlv_t',
      test_status: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
    });
    expect(checked(panel(receiver({ rotation: accepted })))).toEqual(['now']);
    const refused = rotation({
      test_delivery_id: 'dlv_t',
      test_status: DeliveryStatus.DELIVERY_STATUS_FAILED,
    });
    expect(checked(panel(receiver({ rotation: refused })))).toEqual(['24h']);
  });

  it('says how the test with the new secret went, polling while it is pending', () => {
    const tested = (over: Partial<SecretRotation>) =>
      panel(receiver({ rotation: rotation({ test_delivery_id: 'dlv_t', ...over }) }));
    const pending = tested({ test_status: DeliveryStatus.DELIVERY_STATUS_PENDING });
    expect(pending).toContain('data-poll="pending"');
    expect(pending).toContain('waiting for the receiver');
    expect(tested({ test_status: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED })).toContain(
      'Accepted: your receiver verified the new secret',
    );
    const refused = tested({
      test_status: DeliveryStatus.DELIVERY_STATUS_FAILED,
      test_last_status: 401,
      test_last_error: '401 from the receiver',
    });
    expect(refused).toContain('Not accepted: 401 from the receiver.');
    expect(refused).toContain('href="/brands/br_demo/receivers/rcv_orders/deliveries/dlv_t"');
  });

  it('shows a scheduled switch to the second, and lets a member without switch rights only read', () => {
    const page = panel(
      receiver({ rotation: rotation({ switch_at: '2026-11-24T12:00:00.000Z' }) }),
      {
        canRotate: true,
        canSwitch: false,
      },
    );
    expect(page).toContain('The switch is scheduled for 2026-11-24 12:00:00 UTC');
    expect(page).not.toContain('/switch-secret');
    expect(page).toContain('/cancel-rotation');
  });
});

describe('RotatedSecretPage', () => {
  it('shows the new secret once, and says what to do when it is gone', () => {
    const shown = html(
      <RotatedSecretPage
        viewer={viewer()}
        receiverId="rcv_orders"
        created={{ label: 'Order system', secret: 'whsec_new' }}
      />,
    );
    expect(shown).toContain('whsec_new');
    expect(shown).toContain('beside the current one');
    const gone = html(<RotatedSecretPage viewer={viewer()} receiverId="rcv_orders" />);
    expect(gone).not.toContain('whsec_');
    expect(gone).toContain('cancel the rotation');
  });
});

describe('RotationGuide', () => {
  it('shows the official client holding both secrets, with the receiver values as string literals', () => {
    const guide = html(
      <RotationGuide receiver={receiver({ url: "https://hooks.brand.test/in'),evil(('" })} />,
    );
    expect(guide).toContain('secret: secrets,');
    expect(guide).toContain('BRAND_RECORDS_SIGNING_SECRET_OLD');
    expect(guide).toContain('eventTypes: [&quot;payout.paid&quot;]');
    // The path stays inside one JSON string literal.
    expect(guide).toContain(`const PATH = &quot;/in'),evil(('&quot;; // compared exactly`);
  });
});
