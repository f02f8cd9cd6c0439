import { TLSSocket } from 'node:tls';
import { LRUCache } from 'lru-cache';
import { buildConnector, Client } from 'undici';
import { checkIdentityOnLeaf } from './identityFromLeaf';
import { sessionWithoutCertificate } from './sessionWithoutCertificate';

/** A connection of one receiver (origin), lent for one request: give it back when answered. */
export interface ConnectionLease {
  /** The request's dispatcher: one undici Client, one keep-alive connection at a time. */
  readonly dispatcher: Client;
  /** Gives the connection back for the next attempt to this receiver (once the answer is read). */
  release(): void;
}

/**
 * The largest TLS record this worker sends a receiver. OpenSSL sizes each connection's write
 * buffer by it and keeps that buffer for the connection's life: at its default (16 KiB) a kept
 * connection held about 57 KB of RSS, at 4 KiB about 48 (1,000 idle connections to a local
 * server, measured in a process of their own). A delivery's request (headers and a JSON event,
 * about 1.5 KB) fits in one record either way; a larger one takes a few more.
 */
const SEND_FRAGMENT_BYTES = 4_096;

/**
 * The keep-alive connections of the receivers (origins) this worker delivered to lately: the
 * connections of at most `max` receivers; past that the least recently used receiver's close
 * (attempts in flight on them finish first, undici's close) and the next attempt to that receiver
 * opens a new one.
 *
 * Why (issue 64, S10): one agent for every origin kept each receiver's idle connections for as
 * long as the receiver allowed (65 s in the benchmark, undici's cap 10 minutes). Over 10,000
 * receivers, mostly quiet, the webhooks process held thousands of idle TLS sockets after a day
 * of the benchmark: a live heap of 124 MB against 30 MB with 10 receivers, 434 MB of RSS. The
 * sockets kept now are those of the `max` receivers delivered to most recently, which are
 * those a busy platform delivers to most often, so their connections are reused as before.
 *
 * Each receiver's connections are undici Clients (one connection each) lent one attempt at a
 * time, the one used last first, a new one when all are lent: at most as many as its attempts in
 * flight at once, which the lanes bound (DELIVERY_PER_RECEIVER_CONCURRENCY). Not an undici Pool
 * per receiver: a Pool holds a queue of 2,048 slots from birth (16 KB of heap), which at 2,000
 * receivers kept was 32 MB of the webhooks process's 87 MB live heap (S10); a Client's socket
 * that lapses is opened again by the Client at its next request. Memory bound: the Clients of
 * `max` receivers with their idle sockets, plus those of attempts in flight.
 *
 * A receiver's connections are kept from its second attempt on (admission on a second sight, as
 * in 2Q): its first, and any while it is not yet kept, goes over a connection of its own that is
 * closed once the answer is read, and the origin is remembered (`seenMax` origins, a string
 * each). Why (issue 64, S10): most receivers of a platform are quiet, delivered to once in a long
 * while; kept at their one attempt, each took a place among the `max` from a busy receiver, whose
 * next attempt then opened a new connection, and held an idle socket (about 60 KB of RSS) until
 * the receiver's keep-alive lapsed, never to be used again. A receiver delivered to again soon
 * (a burst's second attempt, a busy brand's next change) is kept from then on, and one let go
 * for the bound is kept again at its next attempt.
 *
 * TLS sessions are kept per origin for longer than the connections (`sessionsMax` origins, about
 * 400 bytes each without the receiver's certificate: sessionWithoutCertificate.ts), so a
 * receiver whose connections were closed, or lapsed between deliveries,
 * resumes its session instead of a full handshake: no certificate chain to verify here, no
 * signature for the receiver to make. undici keeps sessions per Client and keys them by host
 * name alone; over 10,000 receivers (S10) 25 of 7,360 new connections resumed. The session of
 * one origin is never offered to another (a port is another origin), and each connection still
 * goes through the pinned lookup and the full certificate check when the receiver declines to
 * resume. A full handshake's name check reads the receiver's certificate alone, not its chain
 * built as objects (identityFromLeaf.ts: a sixth of a full handshake's CPU).
 */
export class ReceiverConnections {
  private readonly receivers: LRUCache<string, OriginClients>;
  private readonly sessions: LRUCache<string, Buffer>;
  /** Origins attempted once, or kept and let go: their next attempt keeps their connections. */
  private readonly seen: LRUCache<string, true>;
  /** Connections of one attempt each (receivers not kept), closed when given back. */
  private readonly oneOffs = new Set<Client>();
  private destroyed = false;

  constructor(
    private readonly options: Client.Options,
    max: number,
    sessionsMax = max * 4,
    seenMax = max * 4,
  ) {
    this.receivers = new LRUCache({
      max,
      dispose: (clients, origin) => {
        if (this.destroyed) return;
        // graceful: attempts in flight on them finish; nothing new is sent through them
        clients.close();
        // a receiver let go was delivered to more than once: its next attempt keeps it again
        this.seen.set(origin, true);
      },
    });
    this.sessions = new LRUCache({ max: sessionsMax });
    this.seen = new LRUCache({ max: seenMax });
  }

  /**
   * A connection of `url`'s origin for one attempt: a kept one when its receiver is kept, else a
   * connection of its own, closed at its release; the second such attempt keeps the receiver.
   */
  lease(url: URL): ConnectionLease {
    const origin = url.origin;
    let clients = this.receivers.get(origin);
    if (!clients) {
      if (!this.seen.has(origin)) {
        this.seen.set(origin, true);
        return this.oneOff(this.open(url));
      }
      this.seen.delete(origin);
      clients = new OriginClients(() => this.open(url));
      this.receivers.set(origin, clients);
    }
    return clients.lend();
  }

  /** A new undici Client (one connection) of `url`'s origin. */
  private open(url: URL): Client {
    const origin = url.origin;
    const options =
      url.protocol === 'https:'
        ? { ...this.options, connect: this.tlsConnector(origin) }
        : this.options;
    return new Client(origin, options);
  }

  /** Lends `client` for one attempt and closes it when given back (its answer read). */
  private oneOff(client: Client): ConnectionLease {
    this.oneOffs.add(client);
    return leaseOf(client, () => {
      this.oneOffs.delete(client);
      client.close().catch(() => undefined);
    });
  }

  /** TLS sessions kept now (origins). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Receivers (origins) whose connections are kept now. */
  get size(): number {
    return this.receivers.size;
  }

  /** Connections (undici Clients) open now: of receivers kept (lent or idle) and of single attempts. */
  get connectionCount(): number {
    let n = this.oneOffs.size;
    for (const clients of this.receivers.values()) n += clients.size;
    return n;
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
      // undici's connector returns the socket at once, before its handshake ends
      const socket: unknown = connect(opts, callback);
      if (socket instanceof TLSSocket) {
        socket.setMaxSendFragment(SEND_FRAGMENT_BYTES);
        socket.on('session', (session: Buffer) =>
          this.sessions.set(origin, sessionWithoutCertificate(session)),
        );
        checkIdentityOnLeaf(socket);
      }
    };
  }

  /** Closes every connection at once, ending attempts still in flight (shutdown). */
  async destroy(): Promise<void> {
    this.destroyed = true;
    const receivers = [...this.receivers.values()];
    const oneOffs = [...this.oneOffs];
    this.receivers.clear();
    this.oneOffs.clear();
    this.sessions.clear();
    this.seen.clear();
    await Promise.all([
      ...receivers.map((clients) => clients.destroy()),
      ...oneOffs.map((c) => c.destroy().catch(() => undefined)),
    ]);
  }
}

/** One receiver's connections: each lent to one attempt at a time, the one used last first. */
class OriginClients {
  /** Clients not lent now; the last one given back is lent next (its socket is the warmest). */
  private readonly idle: Client[] = [];
  private readonly all = new Set<Client>();
  private closed = false;

  constructor(private readonly open: () => Client) {}

  get size(): number {
    return this.all.size;
  }

  lend(): ConnectionLease {
    let client = this.idle.pop();
    if (!client) {
      client = this.open();
      this.all.add(client);
    }
    const lent = client;
    return leaseOf(lent, () => {
      if (!this.closed) this.idle.push(lent);
    });
  }

  /** Lets the attempts in flight finish, then closes every connection. */
  close(): void {
    this.closed = true;
    this.idle.length = 0;
    for (const client of this.all) client.close().catch(() => undefined);
  }

  async destroy(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    await Promise.all([...this.all].map((c) => c.destroy().catch(() => undefined)));
  }
}

/** Lends `client` to one attempt: `giveBack` runs at the lease's first release only. */
function leaseOf(client: Client, giveBack: () => void): ConnectionLease {
  let released = false;
  return {
    dispatcher: client,
    release: () => {
      if (released) return;
      released = true;
      giveBack();
    },
  };
}
