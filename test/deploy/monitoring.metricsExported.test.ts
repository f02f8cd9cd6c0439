// The monitoring the chart ships names only metrics the processes export. The chart is rendered as
// values-production.yaml configures it (every alert, the console on, KEDA on); every PromQL
// expression of its PrometheusRule, its KEDA ScaledObjects' Prometheus triggers and its Grafana
// dashboard (panels and variables) is parsed with Prometheus's own PromQL grammar
// (@prometheus-io/lezer-promql). A running stack (records, plans, webhooks in every role, a gateway
// and the console, with some traffic) is scraped, and the test fails when a selector names a metric
// no process exports (a histogram's _bucket, _sum and _count counted), or filters on a label that
// metric's samples never carry. Two series come from outside the processes, on purpose and named
// here: `up` (Prometheus's own) and `kube_pod_status_ready` (kube-state-metrics).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, waitFor } from '@brand/testkit';
import { parseAllDocuments } from 'yaml';
import type { parser as PromQL } from '@prometheus-io/lezer-promql' with {
  'resolution-mode': 'import',
};
import { startConsoleStack, type ConsoleStack } from '../../console/test/consoleStack';

const CHART = path.join(REPO_ROOT, 'deploy/helm/brand-records');

/** Series that no process of ours exports, and who does. */
const EXTERNAL: Record<string, string> = {
  up: 'Prometheus (one per scrape target)',
  kube_pod_status_ready: 'kube-state-metrics',
};
/** Labels Prometheus and the ServiceMonitors add to every scraped series. */
const TARGET_LABELS = new Set([
  'namespace',
  'job',
  'pod',
  'instance',
  'container',
  'endpoint',
  'service',
]);

/** Prometheus's PromQL parser (an ES module, loaded once before the tests). */
let parser: typeof PromQL;

interface Selector {
  metric: string;
  labels: string[];
  source: string;
}

/** The metric and label names of every vector selector in `expr` (Grafana variables replaced). */
function selectorsOf(expr: string, source: string): Selector[] {
  const promql = expr
    .replaceAll('$__rate_interval', '5m')
    .replaceAll('$__interval', '1m')
    .replaceAll(/\$\{?\w+\}?/g, 'x');
  const tree = parser.parse(promql);
  const found: Selector[] = [];
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) throw new Error(`${source}: not PromQL at ${cursor.from}: ${expr}`);
    if (cursor.name !== 'VectorSelector') continue;
    const node = cursor.node;
    const metric = node.getChild('Identifier');
    const labels = node
      .getChild('LabelMatchers')
      ?.getChildren('UnquotedLabelMatcher')
      .map((m) => m.getChild('LabelName'))
      .filter((n) => n !== null)
      .map((n) => promql.slice(n.from, n.to));
    if (metric)
      found.push({ metric: promql.slice(metric.from, metric.to), labels: labels ?? [], source });
  } while (cursor.next());
  return found;
}

/** The parts of the rendered objects this test reads. */
interface Rendered {
  kind: string;
  metadata: { name: string };
  spec?: {
    groups?: { rules: { alert?: string; record?: string; expr: string }[] }[];
    triggers?: { type: string; name?: string; metadata: { query?: string } }[];
  };
  data?: Record<string, string>;
}
interface Dashboard {
  templating: { list: { name: string; type: string; query?: { query: string } }[] };
  panels: { title: string; targets?: { expr: string }[] }[];
}

/** Every PromQL expression the chart ships, rendered as the production example configures it. */
function shippedExpressions(): { expr: string; source: string }[] {
  const helm = execFileSync('bash', [path.join(REPO_ROOT, 'scripts/deploy/ensureHelm.sh')], {
    encoding: 'utf8',
  }).trim();
  const rendered = execFileSync(
    helm,
    [
      'template',
      'brand-records',
      CHART,
      '-n',
      'brand-records',
      '-f',
      path.join(CHART, 'values-production.yaml'),
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const objects = parseAllDocuments(rendered)
    .map((d) => d.toJS() as Rendered | null)
    .filter((o): o is Rendered => o !== null);
  const out: { expr: string; source: string }[] = [];
  for (const rule of objects.filter((o) => o.kind === 'PrometheusRule'))
    for (const group of rule.spec?.groups ?? [])
      for (const r of group.rules)
        out.push({ expr: r.expr, source: `alert ${r.alert ?? r.record ?? '?'}` });
  for (const so of objects.filter((o) => o.kind === 'ScaledObject'))
    for (const t of so.spec?.triggers ?? [])
      if (t.type === 'prometheus' && t.metadata.query)
        out.push({ expr: t.metadata.query, source: `KEDA ${so.metadata.name} ${t.name ?? ''}` });
  const dashboards = objects.filter(
    (o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-dashboard'),
  );
  expect(dashboards).toHaveLength(1);
  for (const text of Object.values(dashboards[0]!.data ?? {})) {
    const dash = JSON.parse(text) as Dashboard;
    for (const v of dash.templating.list) {
      const m = /^label_values\((.*),\s*\w+\)$/.exec(v.query?.query ?? '');
      if (v.type === 'query' && m)
        out.push({ expr: m[1]!, source: `dashboard variable ${v.name}` });
    }
    for (const panel of dash.panels)
      for (const t of panel.targets ?? [])
        out.push({ expr: t.expr, source: `panel "${panel.title}"` });
  }
  return out;
}

/** What one /metrics page exports: family -> the label names its samples carry. */
function exportedBy(text: string): Map<string, Set<string>> {
  const families = new Map<string, Set<string>>();
  const typeOf = new Map<string, string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      typeOf.set(type[1]!, type[2]!);
      const names = [type[1]!];
      if (type[2] === 'histogram')
        names.push(...['_bucket', '_sum', '_count'].map((s) => type[1] + s));
      if (type[2] === 'summary') names.push(...['_sum', '_count'].map((s) => type[1] + s));
      for (const n of names) if (!families.has(n)) families.set(n, new Set());
      continue;
    }
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? /.exec(line);
    if (!sample) continue;
    const labels = families.get(sample[1]!) ?? new Set<string>();
    for (const m of (sample[2] ?? '').matchAll(/([a-zA-Z_]\w*)="/g)) labels.add(m[1]!);
    families.set(sample[1]!, labels);
  }
  return families;
}

let h: ConsoleStack;

beforeAll(async () => {
  ({ parser } = await import('@prometheus-io/lezer-promql'));
});

describe('a running stack', () => {
  beforeAll(async () => {
    h = await startConsoleStack();
  }, 180_000);

  afterAll(async () => {
    await h?.close();
  });

  test('every metric an alert, a KEDA trigger or a dashboard panel names is exported by a process', async () => {
    const { stack } = h;
    // Some traffic, so that labelled series have samples: gateway answers (a refused key, the
    // OpenAPI document), a console page, readiness, and the consumer's lag read from the broker.
    await fetch(`${stack.gateway.url}/api/v1/campaigns`, {
      headers: { authorization: 'Bearer bk_live_x' },
    });
    await fetch(`${stack.gateway.url}/openapi/service.yaml`);
    await fetch(`${h.url}/`);
    const opsUrls = {
      gateway: stack.gateway.opsUrl,
      records: stack.records.opsUrl,
      plans: stack.plans!.opsUrl,
      webhooks: stack.webhooks!.opsUrl,
      console: h.opsUrl,
    };
    const exported = new Map<string, Set<string>>();
    await waitFor(
      async () => {
        exported.clear();
        for (const url of Object.values(opsUrls)) {
          const text = await (await fetch(`${url}/metrics`)).text();
          for (const [name, labels] of exportedBy(text)) {
            const all = exported.get(name) ?? new Set<string>();
            for (const l of labels) all.add(l);
            exported.set(name, all);
          }
        }
        // The consumer's lag is read from the broker at scrape time: wait for its first answer.
        return (exported.get('webhook_consumer_lag_messages')?.size ?? 0) > 0;
      },
      { timeoutMs: 30_000, what: "the consumer's lag from the broker" },
    );

    const expressions = shippedExpressions();
    const selectors = expressions.flatMap((e) => selectorsOf(e.expr, e.source));
    expect(expressions.length).toBeGreaterThan(40);

    const missing: string[] = [];
    const wrongLabels: string[] = [];
    for (const s of selectors) {
      if (s.metric in EXTERNAL) continue;
      const labels = exported.get(s.metric);
      if (!labels) {
        missing.push(`${s.source}: ${s.metric}`);
        continue;
      }
      // A label the metric's samples never carry would make the selector match nothing.
      for (const l of s.labels)
        if (!TARGET_LABELS.has(l) && labels.size > 0 && !labels.has(l))
          wrongLabels.push(
            `${s.source}: ${s.metric}{${l}} (its labels: ${[...labels].join(', ')})`,
          );
    }
    expect({ missing, wrongLabels }).toEqual({ missing: [], wrongLabels: [] });

    // The external ones are the named few, and the check sees every process's own series.
    const named = new Set(selectors.map((s) => s.metric));
    expect([...named].filter((m) => !exported.has(m)).sort()).toEqual(Object.keys(EXTERNAL).sort());
    for (const m of [
      'http_request_duration_seconds_count',
      'outbox_oldest_unpublished_age_seconds',
      'webhook_deliveries_pending',
      'webhook_consumer_lag_messages',
      'console_http_requests_total',
      'plans_prepare_requests_total',
    ])
      expect(named.has(m)).toBe(true);
  });
});

test('the check itself catches a metric no process exports', () => {
  const selectors = selectorsOf(
    'sum(rate(webhook_deliveries_sent_total{job="brand-records-webhooks-worker"}[$__rate_interval]))',
    'a misspelt panel',
  );
  expect(selectors).toEqual([
    { metric: 'webhook_deliveries_sent_total', labels: ['job'], source: 'a misspelt panel' },
  ]);
  expect(() => selectorsOf('sum(rate(foo[5m]', 'broken')).toThrow(/not PromQL/);
  const families = exportedBy(
    [
      '# TYPE http_request_duration_seconds histogram',
      'http_request_duration_seconds_bucket{le="0.1",route="/",status="200"} 1',
      '# TYPE grpc_server_handled_total counter',
    ].join('\n'),
  );
  expect(families.has('http_request_duration_seconds_count')).toBe(true);
  expect([...families.get('http_request_duration_seconds_bucket')!]).toEqual([
    'le',
    'route',
    'status',
  ]);
  expect(families.get('grpc_server_handled_total')?.size).toBe(0);
  expect(readFileSync(path.join(CHART, 'files/dashboards/brand-records.json'), 'utf8')).toContain(
    'webhook_deliveries_pending',
  );
});
