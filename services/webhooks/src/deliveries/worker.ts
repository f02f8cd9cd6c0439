import { SpanKind, trace, type Span } from '@opentelemetry/api';
import type { Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import { continueTrace, withSpan } from '@brand/shared/telemetry';
import type { SecretBox } from '../receivers/secretBox';
import { attemptOutcome, type DeliveryObserver } from './deliveryMetrics';
import { claimDueDeliveries, type ClaimedDelivery } from './deliveryRepo';
import { recordSucceededAttempts } from './attemptRepo';
import { recordOutcome, type OutcomeSettings } from './recordOutcome';
import type { Header } from './responseBody';
import { retryRecording } from './retryRecording';
import type { Sender, SendResult } from './sender';
import { deliveryBody, headersAsShown, signedHeaders } from './sign';
import { secretInForce } from './signingSecret';
import { SuccessBatcher } from './successBatcher';

export interface WorkerSettings extends OutcomeSettings {
  concurrency: number;
  perReceiver: number;
  leaseMs: number;
  pollMs: number;
}

const tracer = trace.getTracer('webhooks.worker');

/**
 * A delivery worker: claims due deliveries (leased, SKIP LOCKED), sends each signed, and
 * records the outcome. At most `concurrency` deliveries are in flight and at most about
 * `perReceiver` per receiver, so a hanging receiver holds a few slots while the others
 * keep flowing. A worker that dies holds its leases until they expire; then any worker
 * takes them, so nothing is lost.
 */
export class DeliveryWorker {
  private inFlight = 0;
  private readonly perReceiver = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;
  /** Set when stop() gave up waiting: attempts cut short by shutdown are not recorded. */
  private abandoned = false;
  private wakeUp: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  /** Successes of the same moment, written in one statement (successBatcher.ts). */
  private readonly successes: SuccessBatcher;

  constructor(
    private readonly deps: {
      pool: Pool;
      log: Logger;
      sender: Sender;
      box: SecretBox;
      /** Counts and times attempts (the /metrics series). */
      observer?: DeliveryObserver;
    },
    private readonly settings: WorkerSettings,
  ) {
    this.successes = new SuccessBatcher((attempts) => recordSucceededAttempts(deps.pool, attempts));
  }

  start(): void {
    this.loop = this.run();
  }

  /** Looks for due deliveries now (after an ingest, after a slot frees up). */
  wake(): void {
    this.wakeUp?.();
  }

  /**
   * Stops claiming and waits up to `maxWaitMs` for in-flight attempts to be recorded. An
   * attempt still running then (a hanging receiver) is abandoned: its lease expires and
   * another worker repeats it, so shutdown never waits for a slow receiver.
   */
  async stop(maxWaitMs: number): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxWaitMs)));
    await Promise.race([Promise.all([...this.running]), timeout]);
    clearTimeout(timer);
    if (this.running.size > 0) {
      this.abandoned = true;
      this.deps.log.warn(
        { in_flight: this.running.size },
        'stopping with attempts in flight; their leases expire and they are retried',
      );
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let claimed = 0;
      try {
        claimed = await this.claimAndStart();
      } catch (err) {
        this.deps.log.warn({ err }, 'claiming deliveries failed; retrying');
      }
      const free = this.settings.concurrency - this.inFlight;
      if (claimed > 0 && free > 0) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.settings.pollMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  private async claimAndStart(): Promise<number> {
    const free = this.settings.concurrency - this.inFlight;
    if (free <= 0) return 0;
    const busy = [...this.perReceiver]
      .filter(([, n]) => n >= this.settings.perReceiver)
      .map(([id]) => id);
    const rows = await claimDueDeliveries(this.deps.pool, {
      limit: free,
      perReceiver: this.settings.perReceiver,
      busy,
      leaseMs: this.settings.leaseMs,
    });
    for (const row of rows) this.launch(row);
    return rows.length;
  }

  private launch(d: ClaimedDelivery): void {
    this.inFlight++;
    this.perReceiver.set(d.receiver_id, (this.perReceiver.get(d.receiver_id) ?? 0) + 1);
    const task = this.deliver(d)
      .catch((err: unknown) =>
        // the lease expires and another attempt follows: nothing is lost
        this.deps.log.error({ err, delivery_id: d.id }, 'delivery attempt could not be recorded'),
      )
      .finally(() => {
        this.inFlight--;
        const n = (this.perReceiver.get(d.receiver_id) ?? 1) - 1;
        if (n <= 0) this.perReceiver.delete(d.receiver_id);
        else this.perReceiver.set(d.receiver_id, n);
        this.running.delete(task);
        this.wake();
      });
    this.running.add(task);
  }

  /**
   * One attempt in a span ("deliver <event type>") that continues the trace its event was
   * stored in, so the request to the receiver (the sender's HTTP span) and the outcome's
   * queries belong to the business event's trace.
   */
  private deliver(d: ClaimedDelivery): Promise<void> {
    return withSpan(
      tracer,
      `deliver ${d.event_type}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'brand.event.id': d.event_id,
          'brand.event.type': d.event_type,
          'webhook.delivery.id': d.id,
          'webhook.receiver.id': d.receiver_id,
          'webhook.delivery.attempt': d.attempts + 1,
          'webhook.test': d.test,
        },
      },
      continueTrace(d),
      (span) => this.attempt(d, span),
    );
  }

  private async attempt(d: ClaimedDelivery, span: Span): Promise<void> {
    const startedAt = new Date();
    const target = d.target;
    const attempt = d.attempts + 1;
    // the secret in force at the instant of signing: a rotation's new one from its switch time
    const signedAt = new Date();
    const choice = secretInForce(target, d.secret_version, signedAt);
    let secret: string | undefined;
    if (choice.ok) {
      try {
        secret = this.deps.box.open(choice.sealed, target.id);
      } catch (err) {
        this.deps.log.error({ err, receiver_id: target.id }, 'cannot open the signing secret');
      }
    }
    let result: SendResult;
    let sentHeaders: Header[] = [];
    if (secret === undefined) {
      result = secretUnavailable(
        choice.ok ? 'the signing secret cannot be opened with the configured keys' : choice.reason,
      );
    } else {
      const body = deliveryBody({
        id: d.event_id,
        type: d.event_type,
        createdAt: d.event_created_at,
        test: d.test,
        brandId: d.brand_id,
        objectJson: d.object_json,
      });
      const headers = signedHeaders({ secret, type: d.event_type, body, attempt, now: signedAt });
      sentHeaders = headersAsShown(headers);
      result = await this.deps.sender.send(target.url, headers, body);
    }
    // cut short by our own shutdown: not the receiver's failure; the lease brings it back
    if (this.abandoned) return;
    // Recording is tried again after a transient failure while half the lease remains, so an
    // answer the receiver gave is not sent again when the lease runs out (retryRecording.ts).
    const verdict = await retryRecording(
      () =>
        recordOutcome(
          { pool: this.deps.pool, successes: this.successes },
          this.settings,
          d,
          startedAt,
          result,
          sentHeaders,
        ),
      {
        giveUpAt: startedAt.getTime() + this.settings.leaseMs / 2,
        abandoned: () => this.abandoned,
        onRetry: (err, pauseMs) =>
          this.deps.log.warn(
            { err, delivery_id: d.id, retry_in_ms: pauseMs },
            'recording a delivery attempt failed; trying again',
          ),
      },
    );
    const outcome = attemptOutcome(verdict, result.status);
    span.setAttribute('webhook.outcome', outcome);
    this.deps.observer?.attempted({
      outcome,
      seconds: result.durationMs / 1000,
      deliveredEventCreatedAt: result.ok && !d.test ? d.event_created_at : undefined,
    });
    this.deps.log[result.ok ? 'debug' : 'info'](
      {
        delivery_id: d.id,
        event_id: d.event_id,
        receiver_id: d.receiver_id,
        attempt,
        status: result.status,
        error_class: result.errorClass,
        duration_ms: result.durationMs,
        verdict,
      },
      'delivery attempt',
    );
  }
}

/** An attempt that could not be signed: nothing was sent; it fails and is retried. */
function secretUnavailable(error: string): SendResult {
  return {
    ok: false,
    status: undefined,
    errorClass: 'secret_unavailable',
    error,
    excerpt: undefined,
    response: undefined,
    retryAfter: undefined,
    timedOut: false,
    durationMs: 0,
  };
}
