import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { AuthFailureReason } from '../auth/authFailures';
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

  /** Times every request; the route label is the matched pattern, never the raw path. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      const end = this.requests.startTimer({ method: req.method });
      res.on('finish', () => {
        const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
        end({ route, status: String(res.statusCode) });
      });
      next();
    };
  }

  /**
   * One request of a route served outside express (the lean list route): the same
   * histogram and labels the middleware gives it, without a startTimer closure.
   */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.requests.observe({ method, route, status: String(status) }, seconds);
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
