import { healthWindow as window, receiver } from '../../../test/receiverFixtures';
import { combinedWindow } from './combinedWindow';
import { needsFirst } from './overviewData';

describe('the overview', () => {
  it('lists the receivers that need attention first: disabled by the service, failing, catching up, paused, then healthy', () => {
    const ok = receiver({ id: 'rcv_ok' });
    const paused = receiver({ id: 'rcv_paused', enabled: false });
    const gone = receiver({ id: 'rcv_gone', enabled: false, disabled_by_service: true });
    const failing = receiver({ id: 'rcv_failing', failing_since: '2026-11-23T10:00:00Z' });
    const catchingUp = receiver({ id: 'rcv_backlog', waiting: 3 });
    expect(needsFirst([ok, paused, catchingUp, failing, gone]).map((r) => r.id)).toEqual([
      'rcv_gone',
      'rcv_failing',
      'rcv_backlog',
      'rcv_paused',
      'rcv_ok',
    ]);
  });

  it('adds the receivers’ 24-hour windows up slice by slice, failures by kind, latency left out', () => {
    const a = window({
      attempts: 5,
      succeeded: 3,
      failures: [{ class: 'http_5xx', count: 2 }],
      p50_ms: 40,
      buckets: [
        { start: '2026-11-23T09:00:00Z', succeeded: 1, failed: 0 },
        { start: '2026-11-23T10:00:00Z', succeeded: 2, failed: 2 },
      ],
    });
    const b = window({
      attempts: 4,
      succeeded: 1,
      failures: [
        { class: 'timeout', count: 1 },
        { class: 'http_5xx', count: 2 },
      ],
      buckets: [
        { start: '2026-11-23T09:00:00Z', succeeded: 0, failed: 0 },
        { start: '2026-11-23T10:00:00Z', succeeded: 1, failed: 3 },
      ],
    });
    expect(combinedWindow('24h', [a, b])).toEqual({
      window: '24h',
      attempts: 9,
      succeeded: 4,
      failures: [
        { class: 'http_5xx', count: 4 },
        { class: 'timeout', count: 1 },
      ],
      p50_ms: 0,
      p95_ms: 0,
      buckets: [
        { start: '2026-11-23T09:00:00Z', succeeded: 1, failed: 0 },
        { start: '2026-11-23T10:00:00Z', succeeded: 3, failed: 5 },
      ],
      bucket_seconds: 3600,
    });
    // no receivers: an empty window, which the chart says in words
    expect(combinedWindow('24h', [])).toMatchObject({ attempts: 0, buckets: [] });
  });
});
