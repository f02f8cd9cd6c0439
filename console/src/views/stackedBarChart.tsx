import { formatTime } from './format';

/** Height above the budget line its label needs (the text is larger on a narrow chart). */
const BUDGET_LABEL_ROOM = 28;

/** One bar's part: its CSS class (the colour, from console.css) and its value. */
interface BarPart {
  class: string;
  value: number;
}

/** One time slice: when it starts and its parts, drawn bottom to top. */
export interface BarSlice {
  start: string;
  parts: BarPart[];
}

/** The drawing box in SVG user units (CSS scales it to the page) and the plot's margins. */
export interface ChartBox {
  width: number;
  height: number;
  left: number;
  top: number;
}

/**
 * Stacked bars over time slices, drawn on the server as SVG: no script, no inline style
 * (colours come from console.css classes), so it works under the console's CSP and without
 * JavaScript. `description` says in words what the bars show; `budget`, when given, is a
 * dashed line with its label. The receiver's health and the brand's usage draw with it.
 */
export function StackedBarChart(props: {
  slices: BarSlice[];
  box: ChartBox;
  title: string;
  description: string;
  idPrefix: string;
  class?: string;
  /** A line across the plot at this value, with its label (the brand's budget). */
  budget?: { value: number; label: string };
  /** A faint line at the top of the plot (the busiest slice's height). */
  topLine?: boolean;
}) {
  const { slices, box, budget } = props;
  const plot = { left: box.left, right: box.width - 8, top: box.top, bottom: box.height - 26 };
  const total = (s: BarSlice) => s.parts.reduce((n, p) => n + p.value, 0);
  const max = Math.max(1, budget?.value ?? 0, ...slices.map(total));
  const plotW = plot.right - plot.left;
  const slot = slices.length > 0 ? plotW / slices.length : plotW;
  const barW = Math.max(1, slot - (slot > 4 ? 1 : 0));
  const y = (n: number) => (n / max) * (plot.bottom - plot.top);
  const titleId = `${props.idPrefix}-title`;
  const descId = `${props.idPrefix}-desc`;
  const first = slices[0];
  return (
    <svg
      class={props.class ? `chart-svg ${props.class}` : 'chart-svg'}
      viewBox={`0 0 ${box.width} ${box.height}`}
      role="img"
      aria-labelledby={`${titleId} ${descId}`}
      xmlns="http://www.w3.org/2000/svg"
    >
      <title id={titleId}>{props.title}</title>
      <desc id={descId}>{props.description}</desc>
      <line class="axis" x1={plot.left} y1={plot.bottom} x2={plot.right} y2={plot.bottom} />
      {props.topLine && (
        <line class="grid" x1={plot.left} y1={plot.top} x2={plot.right} y2={plot.top} />
      )}
      {slices.map((s, i) => {
        if (total(s) === 0) return null;
        const x = plot.left + i * slot;
        let base = plot.bottom;
        return (
          <g>
            {s.parts.map((p) => {
              const h = y(p.value);
              if (h <= 0) return null;
              base -= h;
              return <rect class={p.class} x={x} y={base} width={barW} height={h} />;
            })}
          </g>
        );
      })}
      {budget && budget.value > 0 && (
        <>
          <line
            class="budget"
            x1={plot.left}
            y1={plot.bottom - y(budget.value)}
            x2={plot.right}
            y2={plot.bottom - y(budget.value)}
          />
          {/* in the middle, clear of the scale; above its line, or below it when the line runs
          along the plot's top (no request yet reached it) and would cut it off at the edge */}
          {plot.bottom - y(budget.value) - plot.top >= BUDGET_LABEL_ROOM ? (
            <text
              x={(plot.left + plot.right) / 2}
              y={plot.bottom - y(budget.value) - 4}
              text-anchor="middle"
            >
              {budget.label}
            </text>
          ) : (
            <text
              x={(plot.left + plot.right) / 2}
              y={plot.bottom - y(budget.value) + 4}
              text-anchor="middle"
              dominant-baseline="hanging"
            >
              {budget.label}
            </text>
          )}
        </>
      )}
      {/* the scale at the plot's left, drawn over the bars; a narrow chart (console.css) draws
      its text larger and shows the scale just inside the plot instead */}
      <text class="y-wide" x={plot.left - 6} y={plot.top + 4} text-anchor="end">
        {max}
      </text>
      <text class="y-wide" x={plot.left - 6} y={plot.bottom} text-anchor="end">
        0
      </text>
      <text class="y-narrow" x={plot.left + 4} y={plot.top + 4} dominant-baseline="hanging">
        {max}
      </text>
      <text class="y-narrow" x={plot.left + 4} y={plot.bottom - 4}>
        0
      </text>
      {first && (
        <text x={plot.left} y={box.height - 8}>
          {formatTime(first.start)}
        </text>
      )}
      <text x={plot.right} y={box.height - 8} text-anchor="end">
        now
      </text>
    </svg>
  );
}
