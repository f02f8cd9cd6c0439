import type { HealthWindow, Receiver } from '@brand/proto/webhooks/v1';
import { failureClassWords } from './attemptWords';
import { waitingWords } from './receiverHealthText';
import { HealthChartFigure, WINDOW_NAMES } from './healthChart';
import { DataTable } from '../../views/dataTable';

const HEALTH_WINDOWS = ['1h', '24h', '7d'] as const;
export type HealthWindowName = (typeof HEALTH_WINDOWS)[number];

/** The window a `?health=` query names; 24 hours otherwise. */
export function healthWindowOf(value: unknown): HealthWindowName {
  return HEALTH_WINDOWS.find((w) => w === value) ?? '24h';
}

/** "97.5%"; "100%" and "0%" without decimals; "—" when nothing was attempted. */
export function successRate(w: HealthWindow): string {
  if (w.attempts === 0) return '—';
  const rate = (w.succeeded / w.attempts) * 100;
  return Number.isInteger(rate) ? `${rate}%` : `${rate.toFixed(1)}%`;
}

const latency = (ms: number) => (ms > 0 ? `${ms} ms` : '—');

/**
 * A receiver's health over the last hour, 24 hours and 7 days (test deliveries left out,
 * counted per attempt): attempts, success rate, failures by kind, latency p50/p95, and a
 * chart of the chosen window. The window is picked by a link (no script needed).
 */
export function HealthPanel(props: {
  base: string;
  windows: HealthWindow[];
  selected: HealthWindowName;
  /** What waits to be delivered now (the receiver's backlog). */
  backlog?: Pick<Receiver, 'waiting' | 'oldest_waiting_at'>;
  /** Where the backlog is listed (the deliveries tab, waiting ones), linked from it. */
  backlogHref?: string;
}) {
  const byName = new Map(props.windows.map((w) => [w.window, w]));
  const shown = byName.get(props.selected);
  return (
    <section aria-labelledby="health">
      <h2 id="health">Health</h2>
      {props.backlog && (
        <p class={props.backlog.waiting > 0 ? 'flag-waiting' : undefined}>
          {props.backlog.waiting > 0 ? (
            <>
              <strong>Backlog</strong>: {waitingWords(props.backlog)} (due now, or waiting for their
              next retry).
              {props.backlogHref && (
                <>
                  {' '}
                  <a href={props.backlogHref}>See them, and retry them now</a>.
                </>
              )}
            </>
          ) : (
            'Nothing waits: every delivery so far was delivered or has failed for good.'
          )}
        </p>
      )}
      {props.windows.length === 0 ? (
        <p class="hint">Health figures are not available right now.</p>
      ) : (
        <>
          <DataTable
            label="Health by window"
            caption="Attempts of real events (tests left out)"
            columns={[
              'Window',
              'Attempts',
              'Success rate',
              'Failures by kind',
              'Latency p50',
              'Latency p95',
            ]}
          >
            {HEALTH_WINDOWS.map((name) => byName.get(name))
              .filter((w): w is HealthWindow => w !== undefined)
              .map((w) => (
                <tr>
                  <th scope="row">{WINDOW_NAMES[w.window]}</th>
                  <td>{w.attempts}</td>
                  <td>{successRate(w)}</td>
                  <td>
                    {w.failures.length === 0
                      ? 'none'
                      : w.failures
                          .map((f) => `${f.count} ${failureClassWords(f.class)}`)
                          .join('; ')}
                  </td>
                  <td>{latency(w.p50_ms)}</td>
                  <td>{latency(w.p95_ms)}</td>
                </tr>
              ))}
          </DataTable>
          <nav aria-label="Chart window">
            <ul class="actions">
              {HEALTH_WINDOWS.map((name) => (
                <li>
                  <a
                    href={`${props.base}?health=${name}#health`}
                    aria-current={name === props.selected ? 'true' : undefined}
                  >
                    {WINDOW_NAMES[name]}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          {shown && <HealthChartFigure window={shown} idPrefix="health-chart" />}
        </>
      )}
    </section>
  );
}
