import { failingAlertDue } from './failingAlert';

const settings = { afterFailures: 5, afterMs: 10 * 60_000 };
const now = new Date('2026-11-25T12:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);

describe('failingAlertDue', () => {
  it('stays quiet for a short run of failures', () => {
    expect(
      failingAlertDue(
        { failing_since: minutesAgo(2), failure_count: 4, failing_alerted_at: null },
        now,
        settings,
      ),
    ).toBe(false);
  });

  it('alerts at the consecutive-failure threshold', () => {
    expect(
      failingAlertDue(
        { failing_since: minutesAgo(1), failure_count: 5, failing_alerted_at: null },
        now,
        settings,
      ),
    ).toBe(true);
  });

  it('alerts when the run is old enough, however few its attempts', () => {
    expect(
      failingAlertDue(
        { failing_since: minutesAgo(10), failure_count: 2, failing_alerted_at: null },
        now,
        settings,
      ),
    ).toBe(true);
  });

  it('alerts once per run', () => {
    expect(
      failingAlertDue(
        { failing_since: minutesAgo(30), failure_count: 40, failing_alerted_at: minutesAgo(20) },
        now,
        settings,
      ),
    ).toBe(false);
  });

  it('has nothing to say without a run', () => {
    expect(
      failingAlertDue(
        { failing_since: null, failure_count: 0, failing_alerted_at: null },
        now,
        settings,
      ),
    ).toBe(false);
  });
});
