/** Which budget an attempt in flight counts against. */
export type Lane = 'shared' | 'slow' | 'hanging';

export interface LaneSettings {
  /** DELIVERY_CONCURRENCY: attempts of receivers that answer promptly, in flight at once. */
  shared: number;
  /** DELIVERY_SLOW_LANE_CONCURRENCY: attempts of slow receivers claimed into the slow lane. */
  slow: number;
  /** DELIVERY_SLOW_LANE_CONCURRENCY too: attempts of hanging receivers, in a lane of their own. */
  hanging: number;
  /** DELIVERY_PER_RECEIVER_CONCURRENCY: attempts of one receiver in flight at once. */
  perReceiver: number;
  /** DELIVERY_SLOW_AFTER_MS: an attempt still waiting after this long is a slow one. */
  slowAfterMs: number;
  /** An attempt still waiting after this long (from its start) is a hanging one (hangAfterMs). */
  hangAfterMs: number;
  /** How long a receiver found slow stays known as slow without a prompt answer. */
  forgetSlowAfterMs: number;
}

/**
 * When an attempt counts as hanging: after 4 x DELIVERY_SLOW_AFTER_MS without an answer (2 s by
 * default), and at most half the attempt timeout, so that a timeout always counts as one.
 */
export function hangAfterMs(slowAfterMs: number, timeoutMs: number): number {
  return Math.max(slowAfterMs, Math.min(4 * slowAfterMs, Math.floor(timeoutMs / 2)));
}

/** What the next claims may take (see DeliveryLanes.room). */
export interface LaneRoom {
  /** Free places in the shared budget: for receivers not known to be slow. */
  shared: number;
  /** Free places in the slow lane: for the receivers in `slowReceivers` only. */
  slow: number;
  /** Free places in the hanging lane: for the receivers in `hangingReceivers` only. */
  hanging: number;
  /**
   * Receivers known to be slow that may take more attempts now, the one that has waited longest
   * for a place first (the slow lane's claims take them in this order).
   */
  slowReceivers: string[];
  /** Receivers known to be hanging that may take more attempts now, in the same order. */
  hangingReceivers: string[];
  /** Receivers with attempts in flight, and how many more each may take (0: none). */
  receiverRoom: Map<string, number>;
}

/** What the lanes know of a receiver found slow or hanging. */
interface Late {
  lane: 'slow' | 'hanging';
  /** When it was last found slow or hanging. */
  at: number;
}

/**
 * A worker's accounting of its attempts in flight, in three lanes, so that a receiver that is
 * slow, hanging or failing by timeout holds only its own share and never the platform's, and a
 * hanging one never the places of one that is slow but answers.
 *
 * Every attempt of a receiver that answers promptly counts against the shared budget
 * (DELIVERY_CONCURRENCY), which bounds the CPU and memory of real work. An attempt still
 * waiting for its answer after `slowAfterMs` is moved to the slow lane, and its receiver is
 * known as slow from then on: its next attempts are claimed into the slow lane directly, up
 * to the lane's own bound. An attempt still waiting after `hangAfterMs` (or one that took that
 * long: a timeout) moves on to the hanging lane, and its receiver is known as hanging: its next
 * attempts are claimed there, up to that lane's bound. Waiting on an idle socket costs almost
 * nothing in Node, so both lanes can be wide (hundreds of sockets) while the shared budget stays
 * small; what was the platform's queue behind 30 s timeouts is now each slow receiver's own.
 * An answer within `slowAfterMs` makes the receiver ordinary again, one within `hangAfterMs` a
 * slow one; `forgetSlowAfterMs` without an attempt makes it ordinary too. Per receiver at most
 * `perReceiver` attempts are in flight in any lane, so a receiver's order and concurrency bound
 * hold as before.
 *
 * Why a hanging lane apart from the slow one (a hostile review, 2026-11-30): with one lane for
 * both, hanging receivers of a few brands filled it (each holds its places a whole timeout), and
 * a receiver that answers in 700 ms waited a timeout or two for each event. Now a hanging
 * receiver can delay a slow one only while neither has been found out yet, `hangAfterMs` at
 * most. Within the slow and hanging lanes the receivers that may take more attempts are offered
 * to the claims in the order they have waited for a place (`room`: the one that waited longest
 * first; a receiver goes to the back when it gets a place, or when a place frees while it had
 * none), not by the age of their deliveries, which favoured the backlog of receivers that hold
 * their places longest.
 *
 * A receiver this worker has not heard from yet (neither a prompt nor a slow answer in
 * `forgetSlowAfterMs`) is probed: while one of its attempts is in flight no more are claimed,
 * so a receiver that has just started to hang holds one shared place for `slowAfterMs`, not
 * `perReceiver` of them. (A single claim may still start several of its deliveries when the
 * budget has room for everyone's; the next claims wait for the first answer.)
 *
 * Fairness, the whole design in one place. Three rules keep one brand's receivers from
 * delaying another's: (1) these lanes, so a slow or hanging receiver holds only its own
 * share of the attempts in flight, and a hanging one none of a slow one's lane; (2) at most
 * `perReceiver` attempts of one receiver in flight, in any lane; (3) both ways of finding work
 * take receivers round-robin within the room these lanes give: the scan's claim ranks each
 * receiver's due deliveries and takes every receiver's first, then every receiver's second
 * (claimDueDeliveries, claimRepo.ts; in the slow and hanging lanes the receiver that waited
 * longest first), and the feed serves its receivers in turn, starting after the one it served
 * last (deliveryFeed.ts; the slow and hanging lanes in this order too). A backlog of one
 * receiver therefore never starves another, and a fast receiver keeps its latency beside fifty
 * hanging ones, a slow one beside a full lane of them (docs/webhooks.md).
 */
export class DeliveryLanes {
  private readonly inLane: Record<Lane, number> = { shared: 0, slow: 0, hanging: 0 };
  private readonly inFlight = new Map<string, number>();
  /**
   * Receivers found slow or hanging. Kept in the order they have waited for a place: a receiver
   * is moved to the back (deleted and set again) when it gets one, or when one of its places
   * frees while it had no room; the first is the one that waited longest.
   */
  private readonly late = new Map<string, Late>();
  /** Receivers that answered promptly, with when they last did. */
  private readonly prompt = new Map<string, number>();
  /** When `late` and `prompt` were last swept of what they no longer know. */
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly s: LaneSettings) {}

  get settings(): Readonly<LaneSettings> {
    return this.s;
  }

  /** Attempts in flight, by lane. */
  counts(): Record<Lane, number> {
    return { ...this.inLane };
  }

  /** The lane attempts of this receiver are claimed into. */
  laneOf(receiverId: string, now = Date.now()): Lane {
    const late = this.late.get(receiverId);
    if (late === undefined) return 'shared';
    if (now - late.at < this.s.forgetSlowAfterMs) return late.lane;
    this.late.delete(receiverId);
    return 'shared';
  }

  /** Whether attempts of this receiver are claimed into the slow or the hanging lane. */
  isSlow(receiverId: string, now = Date.now()): boolean {
    return this.laneOf(receiverId, now) !== 'shared';
  }

  /** Whether this receiver answered promptly lately. */
  private isPrompt(receiverId: string, now: number): boolean {
    const at = this.prompt.get(receiverId);
    if (at === undefined) return false;
    if (now - at < this.s.forgetSlowAfterMs) return true;
    this.prompt.delete(receiverId);
    return false;
  }

  /** Receivers the lanes know as slow, hanging or prompt now (their memory: see sweep). */
  get known(): number {
    return this.late.size + this.prompt.size;
  }

  /** A receiver's bound on attempts in flight: one while it is not heard from yet (probed). */
  private bound(receiverId: string, now: number): number {
    return this.isSlow(receiverId, now) || this.isPrompt(receiverId, now) ? this.s.perReceiver : 1;
  }

  /** What the next claims may take now. */
  room(now = Date.now()): LaneRoom {
    this.sweep(now);
    const receiverRoom = new Map<string, number>();
    for (const [id, n] of this.inFlight) receiverRoom.set(id, Math.max(0, this.bound(id, now) - n));
    const slowReceivers: string[] = [];
    const hangingReceivers: string[] = [];
    // in the order they have waited for a place (the map's order)
    for (const id of [...this.late.keys()]) {
      const lane = this.laneOf(id, now);
      if (lane === 'shared' || (receiverRoom.get(id) ?? this.s.perReceiver) <= 0) continue;
      (lane === 'slow' ? slowReceivers : hangingReceivers).push(id);
    }
    return {
      shared: Math.max(0, this.s.shared - this.inLane.shared),
      slow: Math.max(0, this.s.slow - this.inLane.slow),
      hanging: Math.max(0, this.s.hanging - this.inLane.hanging),
      slowReceivers,
      hangingReceivers,
      receiverRoom,
    };
  }

  /**
   * Forgets, once every `forgetSlowAfterMs`, the receivers last heard from before it: a
   * receiver is only looked up while its attempts are in flight, so without this each
   * receiver ever answered stayed (issue 64: 10,000 receivers, most quiet). The lanes then
   * hold at most the receivers heard from in the last two such periods.
   */
  private sweep(now: number): void {
    if (now - this.sweptAt < this.s.forgetSlowAfterMs) return;
    this.sweptAt = now;
    for (const [id, late] of this.late)
      if (now - late.at >= this.s.forgetSlowAfterMs) this.late.delete(id);
    for (const [id, at] of this.prompt)
      if (now - at >= this.s.forgetSlowAfterMs) this.prompt.delete(id);
  }

  /** Moves a slow or hanging receiver to the back of the order of those waiting for a place. */
  private toBack(receiverId: string, late: Late): void {
    this.late.delete(receiverId);
    this.late.set(receiverId, late);
  }

  /** Counts a claimed attempt in flight; returns its lane. */
  start(receiverId: string, now = Date.now()): Lane {
    this.inFlight.set(receiverId, (this.inFlight.get(receiverId) ?? 0) + 1);
    const lane = this.laneOf(receiverId, now);
    this.inLane[lane]++;
    // it got a place: the receivers that wait go first
    const late = this.late.get(receiverId);
    if (late) this.toBack(receiverId, late);
    return lane;
  }

  /**
   * An attempt in the shared budget has waited `slowAfterMs`: it moves to the slow lane and
   * its receiver is known as slow (unless it is known as hanging already). The slow lane may go
   * over its bound by these moves (it bounds what is claimed into it): each receiver found slow
   * brings at most `perReceiver`.
   */
  demote(receiverId: string, now = Date.now()): Lane {
    this.inLane.shared--;
    this.inLane.slow++;
    const late = this.late.get(receiverId);
    if (late) late.at = now;
    else this.late.set(receiverId, { lane: 'slow', at: now });
    return 'slow';
  }

  /**
   * An attempt in the slow lane has waited `hangAfterMs` since it started: it moves to the
   * hanging lane, freeing its slow place, and its receiver is known as hanging. The hanging
   * lane may go over its bound by these moves, as the slow lane by `demote`.
   */
  hang(receiverId: string, now = Date.now()): Lane {
    this.inLane.slow--;
    this.inLane.hanging++;
    const late = this.late.get(receiverId);
    if (late) {
      late.lane = 'hanging';
      late.at = now;
    } else this.late.set(receiverId, { lane: 'hanging', at: now });
    return 'hanging';
  }

  /**
   * An attempt ended after `durationMs`: frees its place. An answer within `slowAfterMs` makes
   * its receiver ordinary again, one within `hangAfterMs` a slow one; a longer one (or a
   * timeout) keeps it known as hanging.
   */
  finish(receiverId: string, lane: Lane, durationMs: number, now = Date.now()): void {
    this.inLane[lane]--;
    const before = this.inFlight.get(receiverId) ?? 1;
    const hadNoRoom = before >= this.bound(receiverId, now);
    if (before <= 1) this.inFlight.delete(receiverId);
    else this.inFlight.set(receiverId, before - 1);
    if (durationMs < this.s.slowAfterMs) {
      this.late.delete(receiverId);
      this.prompt.set(receiverId, now);
      return;
    }
    this.prompt.delete(receiverId);
    const found: Late = { lane: durationMs < this.s.hangAfterMs ? 'slow' : 'hanging', at: now };
    const late = this.late.get(receiverId);
    // a place of its own freed while it had none: it waits for the next from now
    if (!late || hadNoRoom) this.toBack(receiverId, found);
    else Object.assign(late, found);
  }
}
