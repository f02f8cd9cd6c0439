import { html, receiver, viewer } from '../../../test/receiverFixtures';
import { Layout } from '../../views/layout';
import { attentionOf } from './receiverHealthText';
import { ReceiversPage } from './view';

const failing = receiver({
  id: 'rcv_crm',
  label: 'CRM',
  failing_since: '2026-11-23T09:14:00.000Z',
  last_error: '503 from the receiver',
  failure_count: 4,
  last_status: 503,
});
const gone = receiver({
  id: 'rcv_old',
  label: 'Old hook',
  enabled: false,
  disabled_by_service: true,
  disabled_at: '2026-11-22T07:00:00.000Z',
  disabled_reason: 'gone: the receiver answered 410',
});

describe('the receivers list', () => {
  it('flags a failing receiver: since when, how many in a row, the last error', () => {
    const page = html(
      <ReceiversPage viewer={viewer()} receivers={[receiver(), failing, gone]} canManage />,
    );
    expect(page).toContain('<tr class="failing">');
    expect(page).toContain(
      'since 2026-11-23 09:14 UTC (4 failures in a row). Last error: 503 from the receiver',
    );
    expect(page).toContain('Disabled by the service');
    expect(page).toContain('OK: the last attempt succeeded');
    expect(page.match(/<tr class="failing">/g)).toHaveLength(2);
  });

  it("lets the add form's label hold what the webhooks service takes, at most 100 characters", () => {
    // it allowed 200, and a label of 101-200 came back refused by the service
    const page = html(<ReceiversPage viewer={viewer()} receivers={[]} canManage />);
    expect(page).toMatch(
      /<input id="[^"]*-label" name="label" type="text" required maxlength="100"/,
    );
  });

  it('never reads OK while a backlog waits: it is catching up, with how many and the oldest', () => {
    const catchingUp = receiver({
      waiting: 29,
      oldest_waiting_at: '2026-11-23T09:03:00.000Z',
    });
    const page = html(<ReceiversPage viewer={viewer()} receivers={[catchingUp]} canManage />);
    expect(page).not.toContain('OK: the last attempt succeeded');
    expect(page).toContain('Catching up');
    expect(page).toContain('29 deliveries waiting, the oldest from 2026-11-23 09:03 UTC');
    const failingWithBacklog = html(
      <ReceiversPage
        viewer={viewer()}
        receivers={[{ ...failing, waiting: 10_000, oldest_waiting_at: '2026-11-20T00:00:00.000Z' }]}
        canManage
      />,
    );
    expect(failingWithBacklog).toContain('over 10,000 deliveries waiting');
  });

  it('says when a secret rotation is pending, and when it switches', () => {
    const rotation = {
      created_at: '2026-11-23T11:30:00.000Z',
      switch_at: '',
      created_by: 'owner@brand.test',
      test_delivery_id: '',
      test_status: 0,
      test_last_status: 0,
      test_last_error: '',
    };
    const page = (switchAt: string) =>
      html(
        <ReceiversPage
          viewer={viewer()}
          receivers={[receiver({ rotation: { ...rotation, switch_at: switchAt } })]}
          canManage
        />,
      );
    expect(page('')).toContain('secret rotation pending');
    expect(page('2026-11-24T12:00:00.000Z')).toContain('secret switch at 2026-11-24 12:00 UTC');
  });

  it('does not flag a receiver an owner paused', () => {
    expect(attentionOf(receiver({ enabled: false, disabled_reason: 'paused' }))).toBeUndefined();
    expect(attentionOf(receiver())).toBeUndefined();
    expect(attentionOf(failing)).toMatchObject({
      id: 'rcv_crm',
      lastError: '503 from the receiver',
    });
  });
});

describe('the notice on every brand page', () => {
  const page = (attention: ReturnType<typeof attentionOf>[]) =>
    html(
      <Layout
        title="API keys"
        viewer={viewer({ attention: attention.filter((a) => a !== undefined) })}
      >
        <h1>API keys</h1>
      </Layout>,
    );

  it('names one failing receiver with a link, or lists several in one notice', () => {
    const one = page([attentionOf(failing)]);
    expect(one).toContain(
      'Receiver <a href="/brands/br_demo/receivers/rcv_crm">CRM</a> is failing since 2026-11-23 09:14 UTC: 503 from the receiver.',
    );
    const two = page([attentionOf(failing), attentionOf(gone)]);
    expect(two.match(/class="notice warn"/g)).toHaveLength(1);
    expect(two).toContain('2 receivers need attention');
    expect(two).toContain(
      'disabled by the service since 2026-11-22 07:00 UTC (gone: the receiver answered 410)',
    );
  });

  it('is absent while every receiver is well', () => {
    expect(page([])).not.toContain('notice');
  });
});
