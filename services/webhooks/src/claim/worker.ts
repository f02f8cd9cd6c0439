import { setTimeout as sleep } from 'node:timers/promises';
import { SpanKind, trace, type Span } from '@opentelemetry/api';
import type { Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import { continueTrace, withSpan } from '@brand/shared/telemetry';
import type { SecretBox } from '@brand/shared/secrets';
import { attemptOutcome, type DeliveryObserver } from './deliveryMetrics';
import { DeliveryLanes, type Lane, type LaneRoom, type LaneSettings } from './deliveryLanes';
import { DeliveryFeed, type FedDelivery } from './deliveryFeed';
import { ScanPacing } from './scanPacing';
import {
  claimDueDeliveries,
  claimFedDeliveries,
  type ClaimedDelivery,
  type ClaimScope,
} from './claimRepo';
import { recordSucceededAttempts, type AttemptRecord } from '../outcome/attemptRepo';
import {
  attemptRecordOf,
  recordOutcome,
  type OutcomeSettings,
  type RoundSpent,
  type Verdict,
} from '../outcome/recordOutcome';
import { streamRequest } from '../streams/streamRequest';
import {
  rangeOf,
  recordStreamEntriesGone,
  recordStreamSuccess,
  recordStreamTooLarge,
  setAsideWhenRoundSpent,
} from '../streams/streamOutcome';
import type { Header } from '../send/responseBody';
import { retryRecording } from '../outcome/retryRecording';
import type { Sender, SendResult } from '../send/sender';
import { deliveryBody, headersAsShown, signedHeaders } from '../send/sign';
import { secretInForce } from '../send/signingSecret';
import { OpenedSecrets } from '../send/openedSecrets';
import { GroupCommit } from '../db/groupCommit';

export interface WorkerSettings extends OutcomeSettings {
  /**
   * The lanes' bounds: the shared budget, the slow and hanging lanes, per receiver, and when an
   * attempt is slow and when hanging (deliveryLanes.ts).
   */
  lanes: Omit<LaneSettings, 'forgetSlowAfterMs'>;
  /**
   * DELIVERY_UNRECORDED_MAX: attempts claimed or answered whose outcomes are not yet
   * written, at most. An attempt leaves its lane when the receiver answers, not when its outcome is
   * committed: the lanes bound what is asked of receivers, and recording is the database's
   * work. Sends then go on while a statement records the previous answers, so each statement
   * carries the answers of its moment (db/groupCommit.ts: tens at volume instead of the 7-8
   * that the lanes' 32 places left while they were held through the recording), and a claim
   * takes the places freed meanwhile together. The bound keeps a slow or unreachable database
   * from piling answers up in memory: past it nothing more is claimed.
   */
  unrecordedMax: number;
  leaseMs: number;
  pollMs: number;
  /** DELIVERY_FEED_MAX: deliveries the feed from this process's consumer holds (0: no feed). */
  feedMax: number;
  /** AUDIT_STREAM_BATCH_MAX: entries an audit stream's run carries at most (issue 63). */
  auditBatchMax: number;
}

/** A receiver's deliveries held in the feed at most (a hanging one's cannot fill it). */
const FEED_MAX_PER_RECEIVER = 1_000;

/**
 * While the worker is busy (a quarter of the shared budget in flight or more), a claim waits
 * this long for half the budget to be free, and a success statement for half the budget's
 * answers, rather than going with the few of the moment: every statement has a fixed cost
 * (a claim ~1 ms, a success statement ~0.9 ms of PostgreSQL CPU besides ~0.07 ms a row), so
 * at volume fewer, larger ones leave more CPU for deliveries. Idle, nothing waits.
 */
const GATHER_MS = 4;

/** A receiver found slow is claimed into the slow lane for this long after its last slow answer. */
const FORGET_SLOW_AFTER_MS = 10 * 60_000;

const tracer = trace.getTracer('webhooks.worker');

/**
 * A delivery worker: claims due deliveries (leased, SKIP LOCKED), sends each signed, and
 * records the outcome. Attempts in flight are counted in two lanes, fair across receivers
 * (deliveryLanes.ts). A worker that dies holds its leases until they expire; then
 * any worker takes them, so nothing is lost.
 *
 * Two ways to claim. The deliveries this process's consumer has just stored come through the
 * feed (deliveryFeed.ts) and are claimed by primary key. The scan searches the table for the
 * rest: retries come due, expired leases, deliveries other processes stored, recoveries and
 * tests. Without a feed the worker scans whenever it is woken; once fed, it scans every
 * `pollMs`, and at every turn while scans find deliveries the feed did not hold (a backlog),
 * after a 2xx from a receiver that was failing (its waiting deliveries are then due), or after
 * the feed dropped some over its bounds. So at volume each
 * delivery is found by its key, while the table stays the record of what is owed.
 */
export class DeliveryWorker {
  private readonly lanes: DeliveryLanes;
  private readonly running = new Set<Promise<void>>();
  private stopped = false;
  /** Set when stop() gave up waiting: attempts cut short by shutdown are not recorded. */
  private abandoned = false;
  private wakeUp: (() => void) | undefined;
  /** Set by wake(), so a wake that comes while a claim runs is not lost. */
  private woken = false;
  private loop: Promise<void> | undefined;
  private readonly feed: DeliveryFeed;
  /** When to scan the table besides the feed (scanPacing.ts). */
  private readonly pacing: ScanPacing;
  /** Successes of the same moment, written in one statement (groupCommit.ts). */
  private readonly successes: GroupCommit<AttemptRecord>;
  /** Receivers' signing secrets, opened once (openedSecrets.ts). */
  private readonly secrets: OpenedSecrets;

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
    this.pacing = new ScanPacing(settings.pollMs);
    this.secrets = new OpenedSecrets(deps.box);
    this.successes = new GroupCommit<AttemptRecord>(
      (attempts) => recordSucceededAttempts(deps.pool, attempts),
      {
        gatherMs: GATHER_MS,
        gatherTarget: Math.ceil(settings.lanes.shared / 2),
        busy: () => this.busy(),
      },
    );
    this.lanes = new DeliveryLanes({ ...settings.lanes, forgetSlowAfterMs: FORGET_SLOW_AFTER_MS });
    this.feed = new DeliveryFeed({
      max: settings.feedMax,
      maxPerReceiver: Math.min(settings.feedMax, FEED_MAX_PER_RECEIVER),
    });
  }

  /** Attempts in flight by lane (the /metrics gauge). */
  inFlight(): Record<Lane, number> {
    return this.lanes.counts();
  }

  /** Answered attempts whose outcomes are still being written (the /metrics gauge). */
  unrecordedCount(): number {
    // every attempt is in `running` until recorded, and in a lane until answered
    const inFlight = this.lanes.counts();
    return this.running.size - inFlight.shared - inFlight.slow - inFlight.hanging;
  }

  start(): void {
    this.loop = this.run();
  }

  /** Looks for due deliveries now (after an ingest, after a slot frees up). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Deliveries this process's consumer has just stored (committed): claims them by key. */
  feedStored(deliveries: readonly FedDelivery[]): void {
    if (this.settings.feedMax > 0) {
      this.pacing.markFed();
      this.feed.offer(deliveries);
    }
    this.wake();
  }

  /**
   * Runs of audit streams this process queued (issue 63): claimed by key when the consumer's
   * feed is on, else found by the next turn's scan (a worker without a consumer stays unfed:
   * its scans are not paced by this).
   */
  queueRuns(runs: readonly FedDelivery[]): void {
    if (runs.length === 0) return;
    if (this.settings.feedMax > 0 && this.pacing.isFed()) this.feed.offer(runs);
    else this.pacing.want();
    this.wake();
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
      this.woken = false;
      let claimed = 0;
      try {
        claimed = await this.claimAndStart();
      } catch (err) {
        this.pacing.want();
        this.deps.log.warn({ err }, 'claiming deliveries failed; retrying');
      }
      const room = this.room();
      const hasRoom =
        room.shared > 0 ||
        (room.slow > 0 && room.slowReceivers.length > 0) ||
        (room.hanging > 0 && room.hangingReceivers.length > 0);
      if ((claimed > 0 || this.woken) && hasRoom) {
        // busy with little room: let answers free more places, for a larger claim
        if (this.busy() && room.shared < this.lanes.settings.shared / 2) await sleep(GATHER_MS);
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pacing.untilNextMs());
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  /** Fills the lanes' free places: from the feed first, then by a scan when one is due. */
  private async claimAndStart(): Promise<number> {
    let claimed = 0;
    if (this.feed.size > 0) claimed += await this.claimFed();
    if (this.feed.takeDropped()) this.pacing.want();
    if (this.pacing.due()) claimed += await this.scan();
    return claimed;
  }

  /** Claims fed deliveries by primary key, within the lanes' room. */
  private async claimFed(): Promise<number> {
    const pick = this.feed.take(this.room(), this.lanes.settings.perReceiver, (id) =>
      this.lanes.laneOf(id),
    );
    const fed = [...pick.slow, ...pick.hanging, ...pick.shared];
    if (fed.length === 0) return 0;
    let rows: ClaimedDelivery[];
    try {
      rows = await claimFedDeliveries(this.deps.pool, fed, this.settings.leaseMs);
    } catch (err) {
      // the picked deliveries left the feed: the next scan finds them in the table
      this.pacing.want();
      throw err;
    }
    this.deps.observer?.claimed('feed', rows.length);
    for (const row of rows) this.launch(row);
    return rows.length;
  }

  /**
   * Searches the table for due deliveries to fill the free places of the lanes: the slow and
   * hanging lanes each with its own receivers' due deliveries (the one that waited longest for
   * a place first), the shared budget with everyone else's. Returns how many were claimed.
   */
  private async scan(): Promise<number> {
    this.pacing.started();
    const room = this.room();
    const { perReceiver } = this.lanes.settings;
    const claim = (limit: number, receivers: ClaimScope['receivers']) =>
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
    const hanging = room.hangingReceivers.length > 0 ? room.hanging : 0;
    const [slowRows, hangingRows, sharedRows] = await Promise.all([
      claim(slow, { only: room.slowReceivers }),
      claim(hanging, { only: room.hangingReceivers }),
      claim(room.shared, {
        except: [...full, ...room.slowReceivers, ...room.hangingReceivers],
      }),
    ]);
    const rows = [...slowRows, ...hangingRows, ...sharedRows];
    const held = this.feed.forget(rows);
    this.pacing.found(
      new Set(rows.map((r) => r.receiver_id)),
      rows.filter((r) => !held.has(r.id)).map((r) => r.receiver_id),
      {
        // a claim that reached its limit may have left receivers out: nothing is known of them
        complete:
          sharedRows.length < room.shared &&
          (slow === 0 || slowRows.length < slow) &&
          (hanging === 0 || hangingRows.length < hanging),
        scanned: (id) =>
          room.slowReceivers.includes(id)
            ? slow > 0
            : room.hangingReceivers.includes(id)
              ? hanging > 0
              : (room.receiverRoom.get(id) ?? 1) > 0,
      },
    );
    this.deps.observer?.claimed('scan', rows.length);
    for (const row of rows) this.launch(row);
    return rows.length;
  }

  /**
   * An audit stream's run answered 2xx (issue 63): recorded with the stream moved on, and its
   * next run, opened in the same transaction when entries wait, claimed at once by key.
   */
  private async recordRun(attempt: AttemptRecord, d: ClaimedDelivery): Promise<'succeeded'> {
    const next = await recordStreamSuccess(
      this.deps.pool,
      attempt,
      d.object_json,
      this.settings.auditBatchMax,
    );
    if (next) this.queueRuns([next]);
    return 'succeeded';
  }

  /**
   * An audit stream's run answered 413 (streamOutcome.ts): a run of two entries or more sent
   * again in halves, the half claimed at once (the ordinary outcome when the run is no longer
   * the stream's current one); a run of one entry an ordinary failure, set aside instead of
   * starting a new round when its round is spent, the next run then claimed at once.
   */
  private async recordTooLargeRun(
    attempt: AttemptRecord,
    d: ClaimedDelivery,
    ordinary: (roundSpent?: RoundSpent) => Promise<Verdict>,
  ): Promise<Verdict> {
    const range = rangeOf(d.object_json);
    if (range.through > range.from) {
      const split = await recordStreamTooLarge(this.deps.pool, attempt, d.object_json);
      if (!split) return ordinary();
      this.queueRuns([split.next]);
      return split.verdict;
    }
    let next: FedDelivery | undefined;
    const verdict = await ordinary(async (db) => {
      const aside = await setAsideWhenRoundSpent(
        db,
        { id: d.id, receiverId: d.receiver_id, from: range.from },
        this.settings.auditBatchMax,
      );
      next = aside?.next;
      return aside?.reason;
    });
    if (next) this.queueRuns([next]);
    return verdict;
  }

  /**
   * An audit stream's run none of whose entries is still in the trail (streamOutcome.ts
   * recordStreamEntriesGone): not sent (an empty body answered 2xx was recorded as delivered),
   * the run ended with why, and the stream's next run claimed at once.
   */
  private async endGoneRun(
    d: ClaimedDelivery,
    answered: (durationMs: number) => void,
  ): Promise<void> {
    answered(0);
    if (this.abandoned) return;
    const next = await recordStreamEntriesGone(this.deps.pool, d, this.settings.auditBatchMax);
    if (next) this.queueRuns([next]);
    this.deps.log.warn(
      { delivery_id: d.id, receiver_id: d.receiver_id, run: d.object_json },
      'audit stream run not sent: its entries are no longer kept',
    );
  }

  /** Whether enough attempts are in flight that gathering pays (GATHER_MS). */
  private busy(): boolean {
    return this.lanes.counts().shared >= Math.max(8, this.lanes.settings.shared / 4);
  }

  /**
   * The lanes' room, within what `unrecordedMax` leaves (the shared budget's first, then the
   * slow lane's, then the hanging lane's): every attempt not yet recorded counts, answered or
   * still in flight (it will be an answer to record).
   */
  private room(): LaneRoom {
    const room = this.lanes.room();
    const free = Math.max(0, this.settings.unrecordedMax - this.running.size);
    if (free >= room.shared + room.slow + room.hanging) return room;
    const shared = Math.min(room.shared, free);
    const slow = Math.min(room.slow, free - shared);
    return { ...room, shared, slow, hanging: Math.min(room.hanging, free - shared - slow) };
  }

  private launch(d: ClaimedDelivery): void {
    let lane: Lane = this.lanes.start(d.receiver_id);
    const { slowAfterMs, hangAfterMs } = this.lanes.settings;
    let slowTimer: NodeJS.Timeout | undefined;
    // still waiting for its answer at `hangAfterMs`: it leaves the slow lane for the hanging one
    const hangIn = (ms: number) =>
      setTimeout(() => {
        lane = this.lanes.hang(d.receiver_id);
        slowTimer = undefined;
        this.wake();
      }, ms);
    // still waiting for its answer: the attempt leaves the shared budget for the slow lane
    // (one timer an attempt in the shared budget, as before; the next only once it is slow)
    if (lane === 'shared')
      slowTimer = setTimeout(() => {
        lane = this.lanes.demote(d.receiver_id);
        slowTimer = hangIn(hangAfterMs - slowAfterMs);
        this.wake();
      }, slowAfterMs);
    else if (lane === 'slow') slowTimer = hangIn(hangAfterMs);
    // The receiver's answer frees the lane place (and its time decides the lane); the
    // outcome is recorded after (the task stays in `running` until it is).
    let hasAnswer = false;
    const answered = (durationMs: number): void => {
      if (hasAnswer) return;
      hasAnswer = true;
      clearTimeout(slowTimer);
      this.lanes.finish(d.receiver_id, lane, durationMs);
      this.wake();
    };
    const task = this.deliver(d, answered)
      .catch((err: unknown) =>
        // the lease expires and another attempt follows: nothing is lost
        this.deps.log.error({ err, delivery_id: d.id }, 'delivery attempt could not be recorded'),
      )
      .finally(() => {
        if (!hasAnswer) {
          clearTimeout(slowTimer);
          this.lanes.finish(d.receiver_id, lane, 0);
        }
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
        secret = this.secrets.open(choice.sealed, target.id);
      } catch (err) {
        this.deps.log.error({ err, receiver_id: target.id }, 'cannot open the signing secret');
      }
    }
    let result: SendResult;
    let sentHeaders: Header[] = [];
    // an audit stream (issue 63): its run of entries in its destination's format
    const stream = target.kind === 'webhook' ? undefined : target.kind;
    if (secret === undefined) {
      result = secretUnavailable(
        choice.ok ? 'the signing secret cannot be opened with the configured keys' : choice.reason,
      );
    } else if (stream) {
      const request = await streamRequest(this.deps.pool, d, stream, secret, signedAt);
      if (request === undefined) return this.endGoneRun(d, answered);
      sentHeaders = request.shown;
      result = await this.deps.sender.send(target.url, request.headers, request.body);
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
    const run = stream !== undefined && !d.test;
    const ordinary = (roundSpent?: RoundSpent) =>
      recordOutcome(
        { pool: this.deps.pool, successes: this.successes },
        this.settings,
        d,
        startedAt,
        result,
        sentHeaders,
        roundSpent,
      );
    const verdict = await retryRecording(
      () =>
        run && result.ok && result.status !== undefined
          ? this.recordRun(attemptRecordOf(d, startedAt, result, sentHeaders), d)
          : run && result.status === 413
            ? this.recordTooLargeRun(
                attemptRecordOf(d, startedAt, result, sentHeaders),
                d,
                ordinary,
              )
            : ordinary(),
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
    // a 2xx from a receiver that was failing made its waiting deliveries due (catch-up):
    // deliveries the feed does not hold, so scan for them from the next turn
    if (verdict === 'succeeded' && d.target.failure_count > 0)
      this.pacing.addBacklog(d.receiver_id);
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
