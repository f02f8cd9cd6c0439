import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { AuthFailureReason } from '../auth/authFailures';
import type { RequestScope } from '../http/requestScope';
import type { RateLimitDecision } from '../ratelimit/limiter';

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
  private readonly fastAnswers = new Counter({
    name: 'http_fast_path_answers_total',
    help: 'Requests a fast path answered ahead of express, by route (a subset of http_request_duration_seconds).',
    labelNames: ['route'] as const,
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
    help: 'Requests whose API key was refused, by reason (missing, wrong_scheme, malformed, wrong_environment, unknown_or_revoked, plan_tier, forbidden_permission, unavailable).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Times one request from the prelude to its last byte. The route label is the matched
   * pattern, never the raw path: the one a fast path that answered named (scope.route, also
   * counted in http_fast_path_answers_total), else the one express's router matched, else
   * `unmatched`.
   */
  observeRequest(req: IncomingMessage, res: ServerResponse, scope: RequestScope): void {
    const started = performance.now();
    res.once('finish', () => {
      let route = scope.route;
      if (route === undefined)
        route = (req as { route?: { path?: string } }).route?.path ?? 'unmatched';
      else this.fastAnswers.inc({ route });
      this.requests.observe(
        { method: req.method ?? '', route, status: String(res.statusCode) },
        (performance.now() - started) / 1e3,
      );
    });
  }

  recordDecision(d: RateLimitDecision): void {
    this.rateLimit.inc({
      outcome: d.allowed ? 'allowed' : 'refused',
      backend: d.degraded ? 'memory' : 'redis',
    });
  }

  recordAuthFailure(reason: AuthFailureReason): void {
    this.authFailures.inc({ reason });
  }
}
