import type { Lane, LaneRoom } from './deliveryLanes';

/** A delivery the consumer of this process stored, by its primary key and its receiver. */
export interface FedDelivery {
  id: string;
  /** The partition key: the event's created_at, exactly as stored. */
  eventAt: string;
  receiverId: string;
}

export interface FeedBounds {
  /** Deliveries held at most, across receivers. */
  max: number;
  /** Deliveries of one receiver held at most (a hanging receiver's cannot fill the feed). */
  maxPerReceiver: number;
}

/** What `take` picked: for the shared budget's claim and for the slow and hanging lanes'. */
export type FeedPick = Record<Lane, FedDelivery[]>;

/**
 * The deliveries this process's consumer has just stored, handed to its own worker in memory
 * so that it can claim them by primary key instead of searching the pending index for them
 * (a search whose cost grows with the rows already delivered: their index entries stay until
 * vacuum). The table stays the record: the feed is only a hint. A delivery it drops (over its
 * bounds, or lost with the process) is found by the worker's scan of the table as before; one
 * it names that another worker took, or that is not due, is simply not claimed.
 *
 * Each receiver's deliveries are kept in the order they were stored, and `take` serves
 * receivers in turn within the room the lanes give (fairness: deliveryLanes.ts).
 */
export class DeliveryFeed {
  private readonly byReceiver = new Map<string, FedDelivery[]>();
  private held = 0;
  /** Set when a delivery was dropped over the bounds; cleared by `takeDropped`. */
  private dropped = false;

  constructor(private readonly bounds: FeedBounds) {}

  /** Deliveries held. */
  get size(): number {
    return this.held;
  }

  /** Adds stored deliveries; those over the bounds are dropped (the scan finds them). */
  offer(deliveries: readonly FedDelivery[]): void {
    for (const d of deliveries) {
      let queue = this.byReceiver.get(d.receiverId);
      if (this.held >= this.bounds.max || (queue?.length ?? 0) >= this.bounds.maxPerReceiver) {
        this.dropped = true;
        continue;
      }
      if (!queue) {
        queue = [];
        this.byReceiver.set(d.receiverId, queue);
      }
      queue.push(d);
      this.held++;
    }
  }

  /** Whether deliveries were dropped since the last call: the table holds some the feed does not. */
  takeDropped(): boolean {
    const dropped = this.dropped;
    this.dropped = false;
    return dropped;
  }

  /**
   * Removes and returns deliveries to claim within `room`: a receiver in the shared lane
   * (`laneOf`) takes places of the shared budget, one known as slow or hanging places of its own
   * lane; each at most its own room (`receiverRoom`, else `perReceiver`). One delivery of each
   * receiver per round: in the shared budget the receivers held in turn, starting after those
   * served last; in the slow and hanging lanes the receivers in the order the room gives (the one
   * that waited longest for a place first: deliveryLanes.ts), not the order their deliveries came.
   */
  take(room: LaneRoom, perReceiver: number, laneOf: (receiverId: string) => Lane): FeedPick {
    const pick: FeedPick = { shared: [], slow: [], hanging: [] };
    const left = new Map<string, number>();
    const served = new Set<string>();
    const own = (receiverId: string): number =>
      left.get(receiverId) ?? room.receiverRoom.get(receiverId) ?? perReceiver;
    const takeOne = (receiverId: string, queue: FedDelivery[], lane: Lane): void => {
      pick[lane].push(queue.shift()!);
      this.held--;
      left.set(receiverId, own(receiverId) - 1);
      served.add(receiverId);
    };
    let free = room.shared;
    for (let progress = true; progress && free > 0;) {
      progress = false;
      for (const [receiverId, queue] of this.byReceiver) {
        // no room left: the receivers after this one wait for the next take (over thousands of
        // receivers with deliveries held, going on cost a turn each, S10)
        if (free <= 0) break;
        if (queue.length === 0 || own(receiverId) <= 0 || laneOf(receiverId) !== 'shared') continue;
        takeOne(receiverId, queue, 'shared');
        free--;
        progress = true;
      }
    }
    for (const [lane, order] of [
      ['slow', room.slowReceivers],
      ['hanging', room.hangingReceivers],
    ] as const) {
      let free = room[lane];
      for (let progress = true; progress && free > 0;) {
        progress = false;
        for (const receiverId of order) {
          if (free <= 0) break;
          const queue = this.byReceiver.get(receiverId);
          if (!queue || queue.length === 0 || own(receiverId) <= 0) continue;
          takeOne(receiverId, queue, lane);
          free--;
          progress = true;
        }
      }
    }
    // the receivers served go to the back, so the next take starts with those that were not
    for (const receiverId of served) {
      const queue = this.byReceiver.get(receiverId)!;
      this.byReceiver.delete(receiverId);
      if (queue.length > 0) this.byReceiver.set(receiverId, queue);
    }
    return pick;
  }

  /**
   * Forgets deliveries claimed another way (the worker's scan took them first). Returns the
   * ids of those it held.
   */
  forget(claimed: ReadonlyArray<{ id: string; receiver_id: string }>): Set<string> {
    const forgotten = new Set<string>();
    if (this.held === 0) return forgotten;
    const byReceiver = new Map<string, Set<string>>();
    for (const { id, receiver_id } of claimed) {
      if (!this.byReceiver.has(receiver_id)) continue;
      const ids = byReceiver.get(receiver_id) ?? new Set<string>();
      byReceiver.set(receiver_id, ids.add(id));
    }
    for (const [receiverId, ids] of byReceiver) {
      const queue = this.byReceiver.get(receiverId)!;
      const kept = queue.filter((d) => !ids.has(d.id) || !forgotten.add(d.id));
      if (kept.length === 0) this.byReceiver.delete(receiverId);
      else this.byReceiver.set(receiverId, kept);
    }
    this.held -= forgotten.size;
    return forgotten;
  }
}
