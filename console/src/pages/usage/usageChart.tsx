import { counted, formatCount as count } from '../../views/counted';
import { formatTime } from '../../views/format';
import { StackedBarChart } from '../../views/stackedBarChart';
import { OUTCOME_CLASSES, type Slice } from './usageSeries';

const BOX = { width: 720, height: 180, left: 48, top: 12 };

/** "a minute", "an hour": the budget's unit in words. */
const perSlice = (sliceName: string) => `${sliceName === 'hour' ? 'an' : 'a'} ${sliceName}`;

/** The words a screen reader gets instead of the bars: totals per class, the busiest slice, the budget. */
export function usageDescription(slices: Slice[], budget: number, sliceName: string): string {
  const per = perSlice(sliceName);
  const totals = OUTCOME_CLASSES.map(
    (c) => [c.label, slices.reduce((n, s) => n + s.counts[c.id], 0)] as const,
  );
  const all = totals.reduce((n, [, v]) => n + v, 0);
  if (all === 0) return `No requests. The budget is ${counted(budget, 'request')} ${per}.`;
  const byClass = totals
    .filter(([, v]) => v > 0)
    .map(([label, v]) => `${count(v)} ${label}`)
    .join(', ');
  const sum = (s: Slice) => OUTCOME_CLASSES.reduce((n, c) => n + s.counts[c.id], 0);
  const busiest = slices.reduce((a, b) => (sum(b) > sum(a) ? b : a));
  return `${counted(all, 'request')}: ${byClass}. The busiest ${sliceName} (from ${formatTime(busiest.start)}) had ${count(sum(busiest))}, against a budget of ${count(budget)} ${per}.`;
}

/**
 * Requests over a window as stacked bars by outcome, with the brand's budget per slice as a
 * dashed line (views/stackedBarChart.tsx); the page's tables are the alternative. Without
 * `drawBudget` the line is left out (the overview's small chart, where an hour's budget would
 * flatten the bars) and the description still states it.
 */
export function UsageChart(props: {
  slices: Slice[];
  budget: number;
  sliceName: 'minute' | 'hour';
  title: string;
  idPrefix: string;
  drawBudget?: boolean;
}) {
  const { slices, budget } = props;
  const per = perSlice(props.sliceName);
  return (
    <StackedBarChart
      slices={slices.map((s) => ({
        start: s.start,
        parts: OUTCOME_CLASSES.map((c) => ({ class: `o${c.id}`, value: s.counts[c.id] })),
      }))}
      box={BOX}
      class="usage-chart"
      title={props.title}
      description={usageDescription(slices, budget, props.sliceName)}
      idPrefix={props.idPrefix}
      budget={
        props.drawBudget === false
          ? undefined
          : { value: budget, label: `budget ${count(budget)} ${per}` }
      }
    />
  );
}
