import type { HealthWindow } from '@brand/proto/webhooks/v1';
import { formatTime } from '../../views/format';
import { StackedBarChart } from '../../views/stackedBarChart';

/** The chart's drawing box (SVG user units); CSS scales it to the page. */
const BOX = { width: 640, height: 160, left: 44, top: 10 };

export const WINDOW_NAMES: Record<string, string> = {
  '1h': 'last hour',
  '24h': 'last 24 hours',
  '7d': 'last 7 days',
};

/** A slice's width in words: "5 minutes", "1 hour", "6 hours". */
function sliceWidth(seconds: number): string {
  const [n, unit] =
    seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : [Math.round(seconds / 60), 'minute'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** The words a screen reader gets instead of the bars: totals and the worst slice. */
export function chartDescription(w: HealthWindow): string {
  const failed = w.buckets.reduce((n, b) => n + b.failed, 0);
  const succeeded = w.buckets.reduce((n, b) => n + b.succeeded, 0);
  const name = WINDOW_NAMES[w.window] ?? w.window;
  if (failed + succeeded === 0) return `No attempts in the ${name}.`;
  const slices = `${w.buckets.length} slices${w.bucket_seconds > 0 ? ` of ${sliceWidth(w.bucket_seconds)}` : ''}`;
  const head = `${failed + succeeded} attempts in the ${name} in ${slices}: ${succeeded} succeeded, ${failed} failed.`;
  if (failed === 0) return head;
  const worst = w.buckets.reduce((a, b) => (b.failed > a.failed ? b : a));
  return `${head} The most failures (${worst.failed}) were in the slice from ${formatTime(worst.start)}.`;
}

/**
 * Attempts over one window as stacked bars, succeeded below and failed above
 * (views/stackedBarChart.tsx); the description says in words what the bars show.
 */
export function HealthChart(props: { window: HealthWindow; idPrefix: string }) {
  const { window: w } = props;
  return (
    <StackedBarChart
      slices={w.buckets.map((b) => ({
        start: b.start,
        parts: [
          { class: 'ok', value: b.succeeded },
          { class: 'failed', value: b.failed },
        ],
      }))}
      box={BOX}
      title={`Attempts over the ${WINDOW_NAMES[w.window] ?? w.window}`}
      description={chartDescription(w)}
      idPrefix={props.idPrefix}
      topLine
    />
  );
}

/** The chart in its figure, with the legend of its two colours (a receiver's, the overview's). */
export function HealthChartFigure(props: { window: HealthWindow; idPrefix: string }) {
  return (
    <figure class="chart">
      <HealthChart window={props.window} idPrefix={props.idPrefix} />
      <figcaption class="legend">
        <span class="swatch ok" aria-hidden="true"></span> succeeded{' '}
        <span class="swatch failed" aria-hidden="true"></span> failed
      </figcaption>
    </figure>
  );
}
