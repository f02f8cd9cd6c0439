import type { RequestHandler } from 'express';
import { Counter, Histogram } from 'prom-client';
import { createMetricsRegistry } from '@brand/shared/metrics';

/**
 * The console's Prometheus metrics: the process metrics every service has, plus requests by
 * route pattern (never the raw path: ids would explode the label set) and outcome.
 */
export class ConsoleMetrics {
  readonly registry = createMetricsRegistry();
  private readonly requests = new Counter({
    name: 'console_http_requests_total',
    help: 'Requests answered by the console, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'console_http_request_duration_seconds',
    help: 'Time to answer a console request, by route pattern.',
    labelNames: ['route'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  /** Sign-in mails handed to the SMTP server, and failures to. */
  readonly signInMails = new Counter({
    name: 'console_sign_in_mails_total',
    help: 'Sign-in mails sent, by outcome (sent, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Mails to owners about a receiver the webhooks service disabled, and failures to send. */
  readonly receiverNoticeMails = new Counter({
    name: 'console_receiver_notice_mails_total',
    help: 'Receiver-disabled mails to owners, by outcome (sent, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Invitations and owners' notices records asked for (issue 59), and failures to send. */
  readonly memberMails = new Counter({
    name: 'console_member_mails_total',
    help: 'Invitation and owner-notice mails, by outcome (sent, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  middleware(): RequestHandler {
    return (req, res, next) => {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const routePath = (req.route as { path?: unknown } | undefined)?.path;
        const route = typeof routePath === 'string' ? routePath : 'unmatched';
        this.requests.inc({ method: req.method, route, status: String(res.statusCode) });
        this.duration.observe({ route }, Number(process.hrtime.bigint() - started) / 1e9);
      });
      next();
    };
  }
}
