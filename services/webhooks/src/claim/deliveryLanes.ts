/** Which budget an attempt in flight counts against. */
export type Lane = 'shared' | 'slow';

export interface LaneSettings {
  /** DELIVERY_CONCURRENCY: attempts of receivers that answer promptly, in flight at once. */
  shared: number;
  /** DELIVERY_SLOW_LANE_CONCURRENCY: attempts of slow receivers claimed into the slow lane. */
  slow: number;
  /** DELIVERY_PER_RECEIVER_CONCURRENCY: attempts of one receiver in flight at once. */
  perReceiver: number;
  /** DELIVERY_SLOW_AFTER_MS: an attempt still waiting after this long is a slow one. */
  slowAfterMs: number;
  /** How long a receiver found slow stays known as slow without a prompt answer. */
  forgetSlowAfterMs: number;
}

/** What the next claims may take (see DeliveryLanes.room). */
export interface LaneRoom {
  /** Free places in the shared budget: for receivers not known to be slow. */
  shared: number;
  /** Free places in the slow lane: for the receivers in `slowReceivers` only. */
  slow: number;
  /** Receivers known to be slow that may take more attempts now. */
  slowReceivers: string[];
  /** Receivers with attempts in flight, and how many more each may take (0: none). */
  receiverRoom: Map<string, number>;
}

/**
 * A worker's accounting of its attempts in flight, in two lanes, so that a receiver that is
 * slow, hanging or failing by timeout holds only its own share and never the platform's.
 *
 * Every attempt of a receiver that answers promptly counts against the shared budget
 * (DELIVERY_CONCURRENCY), which bounds the CPU and memory of real work. An attempt still
 * waiting for its answer after `slowAfterMs` is moved to the slow lane, and its receiver is
 * known as slow from then on: its next attempts are claimed into the slow lane directly, up
 * to the lane's own bound. Waiting on an idle socket costs almost nothing in Node, so the
 * slow lane can be wide (hundreds of sockets) while the shared budget stays small; what was
 * the platform's queue behind 30 s timeouts is now each slow receiver's own. A prompt answer
 * (within `slowAfterMs`) makes the receiver ordinary again; so does `forgetSlowAfterMs`
 * without an attempt. Per receiver at most `perReceiver` attempts are in flight in either
 * lane, so a receiver's order and concurrency bound hold as before.
 *
 * A receiver this worker has not heard from yet (neither a prompt nor a slow answer in
 * `forgetSlowAfterMs`) is probed: while one of its attempts is in flight no more are claimed,
 * so a receiver that has just started to hang holds one shared place for `slowAfterMs`, not
 * `perReceiver` of them. (A single claim may still start several of its deliveries when the
 * budget has room for everyone's; the next claims wait for the first answer.)
 *
 * Fairness, the whole design in one place. Three rules keep one brand's receivers from
 * delaying another's: (1) these lanes, so a slow or hanging receiver holds only its own
 * share of the attempts in flight; (2) at most `perReceiver` attempts of one receiver in
 * flight, in either lane; (3) both ways of finding work take receivers round-robin within the
 * room these lanes give: the scan's claim ranks each receiver's due deliveries and takes
 * every receiver's first, then every receiver's second (claimDueDeliveries, claimRepo.ts),
 * and the feed serves its receivers in turn, starting after the one it served last
 * (deliveryFeed.ts). A backlog of one receiver therefore never starves another, and a fast
 * receiver keeps its latency beside fifty hanging ones (docs/webhooks.md).
 */
export class DeliveryLanes {
  private sharedInFlight = 0;
  private slowInFlight = 0;
  private readonly inFlight = new Map<string, number>();
  /** Receivers found slow, with when they were last found slow. */
  private readonly slow = new Map<string, number>();
  /** Receivers that answered promptly, with when they last did. */
  private readonly prompt = new Map<string, number>();
  /** When `slow` and `prompt` were last swept of what they no longer know. */
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly s: LaneSettings) {}

  get settings(): Readonly<LaneSettings> {
    return this.s;
  }

  /** Attempts in flight, by lane. */
  counts(): { shared: number; slow: number } {
    return { shared: this.sharedInFlight, slow: this.slowInFlight };
  }

  /** Whether attempts of this receiver are claimed into the slow lane. */
  isSlow(receiverId: string, now = Date.now()): boolean {
    const at = this.slow.get(receiverId);
    if (at === undefined) return false;
    if (now - at < this.s.forgetSlowAfterMs) return true;
    this.slow.delete(receiverId);
    return false;
  }

  /** Whether this receiver answered promptly lately. */
  private isPrompt(receiverId: string, now: number): boolean {
    const at = this.prompt.get(receiverId);
    if (at === undefined) return false;
    if (now - at < this.s.forgetSlowAfterMs) return true;
    this.prompt.delete(receiverId);
    return false;
  }

  /** Receivers the lanes know as slow or prompt now (their memory: see sweep). */
  get known(): number {
    return this.slow.size + this.prompt.size;
  }

  /** What the next claims may take now. */
  room(now = Date.now()): LaneRoom {
    this.sweep(now);
    const receiverRoom = new Map<string, number>();
    for (const [id, n] of this.inFlight) {
      // a receiver not heard from yet is probed one attempt at a time
      const bound = this.isSlow(id, now) || this.isPrompt(id, now) ? this.s.perReceiver : 1;
      receiverRoom.set(id, Math.max(0, bound - n));
    }
    const slowReceivers: string[] = [];
    for (const id of [...this.slow.keys()]) {
      if (this.isSlow(id, now) && (receiverRoom.get(id) ?? this.s.perReceiver) > 0) {
        slowReceivers.push(id);
      }
    }
    return {
      shared: Math.max(0, this.s.shared - this.sharedInFlight),
      slow: Math.max(0, this.s.slow - this.slowInFlight),
      slowReceivers,
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
    for (const known of [this.slow, this.prompt])
      for (const [id, at] of known) if (now - at >= this.s.forgetSlowAfterMs) known.delete(id);
  }

  /** Counts a claimed attempt in flight; returns its lane. */
  start(receiverId: string, now = Date.now()): Lane {
    this.inFlight.set(receiverId, (this.inFlight.get(receiverId) ?? 0) + 1);
    if (this.isSlow(receiverId, now)) {
      this.slowInFlight++;
      return 'slow';
    }
    this.sharedInFlight++;
    return 'shared';
  }

  /**
   * An attempt in the shared budget has waited `slowAfterMs`: it moves to the slow lane and
   * its receiver is known as slow. The slow lane may go over its bound by these moves (it
   * bounds what is claimed into it): each receiver found slow brings at most `perReceiver`.
   */
  demote(receiverId: string, now = Date.now()): Lane {
    this.sharedInFlight--;
    this.slowInFlight++;
    this.slow.set(receiverId, now);
    return 'slow';
  }

  /**
   * An attempt ended after `durationMs`: frees its place. A prompt answer makes its
   * receiver ordinary again; a slow one (or a timeout) keeps it known as slow.
   */
  finish(receiverId: string, lane: Lane, durationMs: number, now = Date.now()): void {
    if (lane === 'slow') this.slowInFlight--;
    else this.sharedInFlight--;
    const n = (this.inFlight.get(receiverId) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(receiverId);
    else this.inFlight.set(receiverId, n);
    if (durationMs >= this.s.slowAfterMs) {
      this.slow.set(receiverId, now);
      this.prompt.delete(receiverId);
    } else {
      this.slow.delete(receiverId);
      this.prompt.set(receiverId, now);
    }
  }
}
