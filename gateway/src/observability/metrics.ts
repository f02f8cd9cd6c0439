import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AuthFailureReason } from '../http/authFailureReason';
import type { PoolObserver, PoolStats } from '../clients/pageStreams/poolSettings';
import type { RequestScope } from '../http/requestScope';
import type { RateLimitDecision } from '../ratelimit/limiter';
import type { UsageDropReason } from '../usage/usageBuffer';

/** The gateway's Prometheus metrics, in their own registry (no global state between tests). */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  private readonly rateLimit = new Counter({
    name: 'rate_limit_decisions_total',
    help: 'Rate-limit decisions by outcome and by backend (redis, or memory while Redis is down).',
    labelNames: ['outcome', 'backend'] as const,
    registers: [this.registry],
  });

  private readonly authFailures = new Counter({
    name: 'api_key_auth_failures_total',
    help: 'Requests whose API key was refused, by reason (missing, wrong_scheme, malformed, wrong_environment, unknown_or_revoked, plan_tier, forbidden_permission, network, unavailable).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  private readonly usageDropped = new Counter({
    name: 'usage_dropped_total',
    help: 'Requests (counts) and request-log entries (log) that usage counting dropped, by reason: buckets_full, unattributable (refused keys no brand is known for), brand_share, log_full, batch_dropped (rejected by records, or kept 12 hours).',
    labelNames: ['kind', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly usageFlushes = new Counter({
    name: 'usage_flushes_total',
    help: 'Flushes of the usage buffer to records, by outcome (ok, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * A page-stream pool's gauges, read from `stats` at each scrape, and its counters, named
   * for the service its pages come from: `records_page_streams_open`, ...,
   * `feed_page_stream_recycles_total` (docs/operating.md "Metrics").
   */
  observePageStreams(service: 'records' | 'feed', stats: () => PoolStats): PoolObserver {
    const gauge = (name: string, help: string, read: (s: PoolStats) => number): void => {
      new Gauge({
        name: `${service}_${name}`,
        help,
        registers: [this.registry],
        collect() {
          this.set(read(stats()));
        },
      });
    };
    const counter = (name: string, help: string): Counter =>
      new Counter({ name: `${service}_${name}`, help, registers: [this.registry] });
    gauge('page_streams_open', `Page streams open or opening to ${service}.`, (s) => s.streamsOpen);
    gauge(
      'page_stream_in_flight',
      'Pages sent on a stream and not yet answered.',
      (s) => s.inFlight,
    );
    gauge('page_stream_queued', 'Pages waiting for room on a stream.', (s) => s.queued);
    const failovers = counter(
      'page_stream_failovers_total',
      'Pages sent again on another stream after theirs broke.',
    );
    const recycles = counter('page_stream_recycles_total', 'Page streams replaced for their age.');
    return { failover: () => failovers.inc(), recycle: () => recycles.inc() };
  }

  /**
   * One finished request, `seconds` from the prelude to its last byte (the prelude calls it
   * when the response is done). The route label is the matched pattern, never the raw path:
   * the one a lean path named (scope.route), else the one express's router matched, else
   * `unmatched`.
   */
  observeRequest(
    req: IncomingMessage,
    res: ServerResponse,
    scope: RequestScope,
    seconds: number,
  ): void {
    const route = scope.route ?? (req as { route?: { path?: string } }).route?.path ?? 'unmatched';
    this.requests.observe(
      { method: req.method ?? '', route, status: String(res.statusCode) },
      seconds,
    );
  }

  recordDecision(d: RateLimitDecision): void {
    this.rateLimit.inc({
      outcome: d.allowed ? 'allowed' : 'refused',
      backend: d.degraded ? 'memory' : 'redis',
    });
  }

  usageDrop(kind: 'counts' | 'log', n: number, reason: UsageDropReason | 'batch_dropped'): void {
    this.usageDropped.inc({ kind, reason }, n);
  }

  usageFlush(outcome: 'ok' | 'failed'): void {
    this.usageFlushes.inc({ outcome });
  }

  recordAuthFailure(reason: AuthFailureReason): void {
    this.authFailures.inc({ reason });
  }
}
