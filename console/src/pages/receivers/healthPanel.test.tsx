import { healthWindow, html } from '../../../test/receiverFixtures';
import { chartDescription, HealthChart } from './healthChart';
import { HealthPanel, healthWindowOf, successRate } from './healthPanel';

const buckets = Array.from({ length: 24 }, (_, i) => ({
  start: new Date(Date.UTC(2026, 10, 22, 11 + i)).toISOString(),
  succeeded: 10,
  failed: i === 20 ? 6 : 0,
}));
const day = healthWindow({
  window: '24h',
  attempts: 246,
  succeeded: 240,
  failures: [
    { class: 'http_5xx', count: 4 },
    { class: 'timeout', count: 2 },
  ],
  p50_ms: 85,
  p95_ms: 910,
  buckets,
});

describe('HealthChart', () => {
  const svg = html(<HealthChart window={day} idPrefix="c" />);

  it('is an SVG drawn on the server: no script, no inline style, no event handler', () => {
    expect(svg).toMatch(/^<svg /);
    expect(svg).not.toMatch(/<script|style=|\son[a-z]+=/i);
    expect(svg).toContain('role="img"');
    expect(svg).toContain('aria-labelledby="c-title c-desc"');
  });

  it('draws a bar per slice, failures stacked on successes, scaled to the busiest slice', () => {
    const rects = [
      ...svg.matchAll(
        /<rect class="(ok|failed)" x="[^"]+" y="([^"]+)" width="[^"]+" height="([^"]+)"/g,
      ),
    ];
    expect(rects.filter((r) => r[1] === 'ok')).toHaveLength(24);
    const failed = rects.filter((r) => r[1] === 'failed');
    expect(failed).toHaveLength(1);
    // The busiest slice (16 attempts) fills the plot height; 6 of 16 are failures.
    const okHeights = rects.filter((r) => r[1] === 'ok').map((r) => Number(r[3]));
    expect(Number(failed[0]![3]) / (okHeights[20]! + Number(failed[0]![3]))).toBeCloseTo(6 / 16);
    expect(svg).toContain('>16</text>');
  });

  it('says in words what the bars show', () => {
    expect(chartDescription(day)).toBe(
      '246 attempts in the last 24 hours in 24 slices of 1 hour: 240 succeeded, 6 failed. The most failures (6) were in the slice from 2026-11-23 07:00 UTC.',
    );
    expect(chartDescription(healthWindow({ window: '1h' }))).toBe('No attempts in the last hour.');
  });
});

describe('HealthPanel', () => {
  it('lists each window with attempts, success rate, failures by kind and latency', () => {
    const page = html(
      <HealthPanel
        base="/brands/br_demo/receivers/rcv_orders"
        windows={[healthWindow({ window: '1h' }), day, healthWindow({ window: '7d' })]}
        selected="24h"
      />,
    );
    expect(page).toContain('97.6%');
    expect(page).toContain('4 5xx answers; 2 timed out (no answer within 30 s)');
    expect(page).toContain('85 ms');
    expect(page).toContain('910 ms');
    expect(page).toContain('href="/brands/br_demo/receivers/rcv_orders?health=7d#health"');
    expect(page).toContain('aria-current="true">last 24 hours');
  });

  it('says so when the service cannot tell', () => {
    expect(html(<HealthPanel base="/x" windows={[]} selected="24h" />)).toContain(
      'not available right now',
    );
  });

  it('reads the window from the query, 24 hours otherwise', () => {
    expect(healthWindowOf('7d')).toBe('7d');
    expect(healthWindowOf(['1h'])).toBe('24h');
    expect(healthWindowOf('__proto__')).toBe('24h');
    expect(successRate(healthWindow())).toBe('—');
    expect(successRate(healthWindow({ attempts: 4, succeeded: 4 }))).toBe('100%');
  });
});
