import { SpanKind, trace, type Span } from '@opentelemetry/api';
import type { Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import { continueTrace, withSpan } from '@brand/shared/telemetry';
import type { SecretBox } from '@brand/shared/secrets';
import { attemptOutcome, type DeliveryObserver } from './deliveryMetrics';
import { DeliveryLanes, type Lane, type LaneSettings } from './deliveryLanes';
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
  /** The lanes' bounds: the shared budget, the slow lane, per receiver (deliveryLanes.ts). */
  lanes: Omit<LaneSettings, 'forgetSlowAfterMs'>;
  leaseMs: number;
  pollMs: number;
}

/** A receiver found slow is claimed into the slow lane for this long after its last slow answer. */
const FORGET_SLOW_AFTER_MS = 10 * 60_000;

const tracer = trace.getTracer('webhooks.worker');

/**
 * A delivery worker: claims due deliveries (leased, SKIP LOCKED), sends each signed, and
 * records the outcome. Attempts in flight are counted in two lanes (deliveryLanes.ts): the
 * shared budget for receivers that answer promptly, and a wide slow lane that attempts move
 * to once they have waited `slowAfterMs`, so slow and hanging receivers hold only their own
 * share; at most `perReceiver` attempts of one receiver are in flight in either. Each claim
 * takes receivers round-robin. A worker that dies holds its leases until they expire; then
 * any worker takes them, so nothing is lost.
 */
export class DeliveryWorker {
  private readonly lanes: DeliveryLanes;
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
    this.lanes = new DeliveryLanes({ ...settings.lanes, forgetSlowAfterMs: FORGET_SLOW_AFTER_MS });
  }

  /** Attempts in flight by lane (the /metrics gauge). */
  inFlight(): { shared: number; slow: number } {
    return this.lanes.counts();
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
      const room = this.lanes.room();
      if (claimed > 0 && (room.shared > 0 || (room.slow > 0 && room.slowReceivers.length > 0)))
        continue;
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

  /**
   * Fills the free places of both lanes: the slow lane with its own receivers' due
   * deliveries, the shared budget with everyone else's. Returns how many were claimed.
   */
  private async claimAndStart(): Promise<number> {
    const room = this.lanes.room();
    const { perReceiver } = this.lanes.settings;
    const claim = (limit: number, receivers: { only: string[] } | { except: string[] }) =>
      limit <= 0
        ? Promise.resolve([])
        : claimDueDeliveries(this.deps.pool, {
            limit,
            perReceiver,
            receiverRoom: room.receiverRoom,
            receivers,
            leaseMs: this.settings.leaseMs,
          });
    const full = [...room.receiverRoom].filter(([, free]) => free <= 0).map(([id]) => id);
    const slow = room.slowReceivers.length > 0 ? room.slow : 0;
    const [slowRows, sharedRows] = await Promise.all([
      claim(slow, { only: room.slowReceivers }),
      claim(room.shared, { except: [...full, ...room.slowReceivers] }),
    ]);
    for (const row of slowRows) this.launch(row);
    for (const row of sharedRows) this.launch(row);
    return slowRows.length + sharedRows.length;
  }

  private launch(d: ClaimedDelivery): void {
    let lane: Lane = this.lanes.start(d.receiver_id);
    // still waiting for its answer: the attempt leaves the shared budget for the slow lane
    const slowTimer =
      lane === 'shared'
        ? setTimeout(() => {
            lane = this.lanes.demote(d.receiver_id);
            this.wake();
          }, this.lanes.settings.slowAfterMs)
        : undefined;
    // the receiver's answer time decides its lane, not the recording after it
    let answeredInMs = 0;
    const answered = (durationMs: number): void => {
      answeredInMs = durationMs;
      clearTimeout(slowTimer);
    };
    const task = this.deliver(d, answered)
      .catch((err: unknown) =>
        // the lease expires and another attempt follows: nothing is lost
        this.deps.log.error({ err, delivery_id: d.id }, 'delivery attempt could not be recorded'),
      )
      .finally(() => {
        clearTimeout(slowTimer);
        this.lanes.finish(d.receiver_id, lane, answeredInMs);
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
  private deliver(d: ClaimedDelivery, answered: (durationMs: number) => void): Promise<void> {
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
      (span) => this.attempt(d, span, answered),
    );
  }

  private async attempt(
    d: ClaimedDelivery,
    span: Span,
    answered: (durationMs: number) => void,
  ): Promise<void> {
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
    answered(result.durationMs);
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
