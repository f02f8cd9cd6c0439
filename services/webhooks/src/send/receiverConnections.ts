import { LRUCache } from 'lru-cache';
import { Pool } from 'undici';

/**
 * The keep-alive connections of the receivers (origins) this worker delivered to lately: a
 * pool per origin, at most `max` of them; past that the least recently used pool closes (its
 * attempts in flight finish first, undici's close) and the next attempt to that receiver opens a
 * new one.
 *
 * Why (issue 64, S10): one agent for every origin kept each receiver's idle connections for as
 * long as the receiver allowed (65 s in the benchmark, undici's cap 10 minutes). Over 10,000
 * receivers, mostly quiet, the webhooks process held thousands of idle TLS sockets after a day
 * of the benchmark: a live heap of 124 MB against 30 MB with 10 receivers, 434 MB of RSS. The
 * sockets kept now are those of the `max` receivers delivered to most recently, which are
 * those a busy platform delivers to most often, so their connections are reused as before.
 * Memory bound: `max` pools with their idle sockets (at most as many as the attempts that were
 * in flight to that origin at once), plus the pools of attempts in flight.
 */
export class ReceiverConnections {
  private readonly pools: LRUCache<string, Pool>;
  private destroyed = false;

  constructor(
    private readonly options: Pool.Options,
    max: number,
  ) {
    this.pools = new LRUCache({
      max,
      dispose: (pool) => {
        // graceful: attempts in flight on it finish; nothing new is sent through it
        if (!this.destroyed) pool.close().catch(() => undefined);
      },
    });
  }

  /** The pool of `url`'s origin, opened on first use. */
  of(url: URL): Pool {
    const origin = url.origin;
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, this.options);
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** Receivers (origins) whose connections are kept now. */
  get size(): number {
    return this.pools.size;
  }

  /** Closes every connection at once, ending attempts still in flight (shutdown). */
  async destroy(): Promise<void> {
    this.destroyed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }
}
