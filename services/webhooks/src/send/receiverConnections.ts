import { TLSSocket } from 'node:tls';
import { LRUCache } from 'lru-cache';
import { buildConnector, Pool } from 'undici';

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
 *
 * TLS sessions are kept per origin for longer than the pools (`sessionsMax` origins, about a
 * kilobyte each), so a receiver whose pool was closed, or whose connection lapsed between
 * deliveries, resumes its session instead of a full handshake: no certificate chain to verify
 * here, no signature for the receiver to make. undici keeps sessions per pool and keys them by
 * host name alone; over 10,000 receivers (S10) 25 of 7,360 new connections resumed. The
 * session of one origin is never offered to another (a port is another origin), and each
 * connection still goes through the pinned lookup and the full certificate check when the
 * receiver declines to resume.
 */
export class ReceiverConnections {
  private readonly pools: LRUCache<string, Pool>;
  private readonly sessions: LRUCache<string, Buffer>;
  private destroyed = false;

  constructor(
    private readonly options: Pool.Options,
    max: number,
    sessionsMax = max * 4,
  ) {
    this.pools = new LRUCache({
      max,
      dispose: (pool) => {
        // graceful: attempts in flight on it finish; nothing new is sent through it
        if (!this.destroyed) pool.close().catch(() => undefined);
      },
    });
    this.sessions = new LRUCache({ max: sessionsMax });
  }

  /** The pool of `url`'s origin, opened on first use. */
  of(url: URL): Pool {
    const origin = url.origin;
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(
        origin,
        url.protocol === 'https:'
          ? { ...this.options, connect: this.tlsConnector(origin) }
          : this.options,
      );
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** TLS sessions kept now (origins). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * undici's connector with this origin's last session offered, and each new session the
   * receiver issues kept for the next connection (built per connection: undici takes a session
   * given to it for every connection of its connector).
   */
  private tlsConnector(origin: string): buildConnector.connector {
    const base = (this.options.connect ?? {}) as buildConnector.BuildOptions;
    return (opts, callback) => {
      const connect = buildConnector({
        ...base,
        maxCachedSessions: 0,
        session: this.sessions.get(origin),
      });
      connect(opts, (...args) => {
        const socket = args[1];
        if (socket instanceof TLSSocket)
          socket.on('session', (session: Buffer) => this.sessions.set(origin, session));
        callback(...args);
      });
    };
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
    this.sessions.clear();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }
}
