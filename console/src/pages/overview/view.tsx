import { counted } from '../../views/counted';
import { Layout, type Viewer } from '../../views/layout';
import { HealthChartFigure } from '../receivers/healthChart';
import { UsageChart } from '../usage/usageChart';
import { OUTCOME_CLASSES } from '../usage/usageSeries';
import type { OverviewData } from './overviewData';
import {
  ExpiringKeysPanel,
  FailuresPanel,
  PlansPanel,
  ReceiversPanel,
  Unavailable,
} from './panels';

/**
 * A brand's home (issue 62): how its receivers are doing (those that need attention first), its
 * deliveries and API requests of the last 24 hours as small charts, the newest failures, plans
 * waiting for review and keys about to expire, each with the way to the page that acts on it.
 */
export function OverviewPage(props: { viewer: Viewer; data: OverviewData; now: number }) {
  const { viewer, data } = props;
  const base = `/brands/${viewer.brandId}`;
  const d = data.deliveries;
  const delivered = d ? `${d.succeeded} of ${counted(d.attempts, 'attempt')} succeeded` : '';
  const requests = data.requests;
  const requestCount = requests?.slices.reduce(
    (n, s) => n + OUTCOME_CLASSES.reduce((m, c) => m + s.counts[c.id], 0),
    0,
  );
  return (
    <Layout title="Overview" viewer={viewer} section="overview">
      <h1>{viewer.brandName}: overview</h1>
      <div class="overview-grid">
        <section aria-labelledby="ov-deliveries" class="panel">
          <h2 id="ov-deliveries">Deliveries, last 24 hours</h2>
          {d ? (
            <>
              <p class="hint">
                {d.attempts === 0
                  ? 'No attempts of real events at any receiver.'
                  : `${delivered} at every receiver (tests left out).`}{' '}
                <a href={`${base}/deliveries`}>All deliveries</a>
              </p>
              <HealthChartFigure window={d} idPrefix="ov-deliveries-chart" />
            </>
          ) : (
            <Unavailable what="Delivery health" />
          )}
        </section>
        <section aria-labelledby="ov-requests" class="panel">
          <h2 id="ov-requests">API requests, last 24 hours</h2>
          {requests ? (
            <>
              <p class="hint">
                {counted(requestCount ?? 0, 'request')}, REST and assistant, against a budget of{' '}
                {requests.limitPerMinute} a minute. <a href={`${base}/usage`}>Usage</a>
              </p>
              <figure class="chart">
                <UsageChart
                  slices={requests.slices}
                  budget={requests.limitPerMinute * 60}
                  sliceName="hour"
                  title="API requests per hour, last 24 hours"
                  idPrefix="ov-requests-chart"
                  drawBudget={false}
                />
                <figcaption class="legend">
                  {OUTCOME_CLASSES.map((c) => (
                    <>
                      <span class="legend-item">
                        <span class={`swatch o${c.id}`} aria-hidden="true" /> {c.label}
                      </span>{' '}
                    </>
                  ))}
                </figcaption>
              </figure>
            </>
          ) : (
            <Unavailable what="Usage" />
          )}
        </section>
      </div>
      <section aria-labelledby="ov-receivers">
        <h2 id="ov-receivers">Receivers</h2>
        {data.receivers ? (
          <ReceiversPanel base={base} receivers={data.receivers} />
        ) : (
          <Unavailable what="Receivers" />
        )}
      </section>
      <section aria-labelledby="ov-failures">
        <h2 id="ov-failures">Newest failures</h2>
        {data.failures ? (
          <FailuresPanel base={base} failures={data.failures} />
        ) : (
          <Unavailable what="Failed deliveries" />
        )}
        <p>
          <a href={`${base}/deliveries?state=failed`}>Every failed delivery</a> ·{' '}
          <a href={`${base}/deliveries?state=waiting`}>Every delivery waiting</a>
        </p>
      </section>
      <div class="overview-grid">
        <section aria-labelledby="ov-plans" class="panel">
          <h2 id="ov-plans">Plans waiting for review</h2>
          {data.plans ? <PlansPanel base={base} {...data.plans} /> : <Unavailable what="Plans" />}
        </section>
        <section aria-labelledby="ov-keys" class="panel">
          <h2 id="ov-keys">Keys expiring soon</h2>
          {data.expiringKeys ? (
            <ExpiringKeysPanel base={base} keys={data.expiringKeys} now={props.now} />
          ) : (
            <Unavailable what="Keys" />
          )}
        </section>
      </div>
    </Layout>
  );
}
