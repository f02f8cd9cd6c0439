import { html, receiver, viewer } from '../../../test/receiverFixtures';
import { RecoveryForm, RecoveryPreviewPage } from './recoveryView';

const since = new Date('2026-11-20T14:00:00.000Z');
const preview = (failed: number, waiting = 0) => ({
  failed,
  waiting,
  would_requeue: Math.min(failed + waiting, 10_000),
  earliest_since: '2026-11-09T12:00:00.000Z',
  max_per_request: 10_000,
});
const page = (over: Partial<Parameters<typeof RecoveryPreviewPage>[0]> = {}) =>
  html(
    <RecoveryPreviewPage
      viewer={viewer()}
      receiver={receiver()}
      since={since}
      preview={preview(37)}
      requestId="0b1d8a4e-3f1c-4c55-9d7e-2f3a4b5c6d7e"
      canRecover
      {...over}
    />,
  );

describe('RecoveryPreviewPage', () => {
  it('counts what is not delivered since the time, failed and waiting, and states the bounds', () => {
    const shown = page({ preview: preview(8, 29) });
    expect(shown).toContain(
      'Since 2026-11-20 14:00 UTC: 8 deliveries failed and 29 deliveries waiting for a retry.',
    );
    expect(shown).toContain('at most 14 days back and sends at most 10,000 deliveries per request');
    expect(shown).toContain('Send 37 deliveries now');
    expect(shown).toContain('name="since" value="2026-11-20T14:00:00.000Z"');
    expect(shown).toContain('name="request_id" value="0b1d8a4e-3f1c-4c55-9d7e-2f3a4b5c6d7e"');
  });

  it('says what is left beyond the per-request bound', () => {
    const shown = page({ preview: preview(12_000, 345) });
    expect(shown).toContain('12,000 deliveries failed and 345 deliveries waiting');
    expect(shown).toContain('sends the oldest 10,000');
    expect(shown).toContain('for the other 2,345');
  });

  it('never says "nothing to recover" while deliveries wait for a retry', () => {
    const shown = page({ preview: preview(0, 29) });
    expect(shown).not.toContain('nothing to recover');
    expect(shown).toContain('0 deliveries failed and 29 deliveries waiting for a retry');
    expect(shown).toContain('Send 29 deliveries now');
  });

  it('offers nothing to confirm when everything was delivered, for a disabled receiver, or to a non-owner', () => {
    expect(page({ preview: preview(0) })).toContain('there is nothing to recover');
    expect(page({ preview: preview(0) })).not.toContain('Send ');
    const disabled = page({ receiver: receiver({ enabled: false, disabled_reason: 'paused' }) });
    expect(disabled).toContain('is disabled, so recovery is refused');
    expect(disabled).not.toContain('deliveries now');
    expect(page({ canRecover: false })).not.toContain('deliveries now');
  });
});

describe('RecoveryForm', () => {
  const now = new Date('2026-11-23T12:00:00.000Z');
  it('starts where the failures began, within 14 days, as UTC', () => {
    const form = html(
      <RecoveryForm
        viewer={viewer()}
        receiver={receiver({ failing_since: '2026-11-22T08:15:30.000Z' })}
        now={now}
      />,
    );
    expect(form).toContain('method="get"');
    // typed UTC text, as the pages print times (issue 62: a picker showed mm/dd/yyyy)
    expect(form).toContain('type="text" name="since" value="2026-11-22 08:15"');
    expect(form).toContain('Since (UTC)');
    expect(form).toContain('at most 14 days back');
    // failures older than the window: a day back instead
    const old = html(
      <RecoveryForm
        viewer={viewer()}
        receiver={receiver({ failing_since: '2026-11-01T08:15:30.000Z' })}
        now={now}
      />,
    );
    expect(old).toContain('value="2026-11-22 12:00"');
  });

  it('says a disabled receiver must be enabled first', () => {
    const form = html(
      <RecoveryForm viewer={viewer()} receiver={receiver({ enabled: false })} now={now} />,
    );
    expect(form).toContain('enable it first');
    expect(form).not.toContain('<form');
  });
});
