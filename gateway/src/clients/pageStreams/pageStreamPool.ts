import { AppError } from '@brand/shared/errors';
import type { Logger } from '@brand/shared/logger';
import { cancelled, failureOf, unavailable } from './pageOutcomes';
import type { PageOrder, PageStreamSettings, PoolObserver, PoolStats } from './poolSettings';
import type { ResolveAddresses } from './serviceAddresses';
import type { PageStreamResponse } from '@brand/shared/grpc';
import type { OpenStream, StreamTransport } from './streamTransport';

type StreamState = 'starting' | 'open' | 'draining' | 'ended';

interface Stream<Req, Res> {
  address: string;
  transport: StreamTransport<Req>;
  state: StreamState;
  expiresAt: number;
  inFlight: Map<number, Pending<Req, Res>>;
}

interface Pending<Req, Res> {
  id: number;
  order: PageOrder<Req>;
  deadline: number;
  failovers: number;
  stream: Stream<Req, Res> | undefined;
  timer: NodeJS.Timeout;
  resolve: (page: Res) => void;
  reject: (err: AppError) => void;
  onAbort: () => void;
}

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;

/**
 * The gateway's half of a page hop: page calls as messages on a few long-lived bidirectional
 * streams (records' StreamRecordsPages, the events feed's StreamFeedPages), so a page costs a
 * message, not a call's setup, metadata and deadline. `streamsPerAddress` streams to every
 * address the service's target resolves to (resolved again every `resolveIntervalMs`),
 * replaced by age (the two RPCs' messages are alike, PageStreamRequest and PageStreamResponse
 * in @brand/shared/grpc); `service` names the service in the 503s.
 *
 * As correct as the unary call it replaces:
 * - every page has its own deadline; when it passes, the page is cancelled on its stream and
 *   answered 503 service_unavailable (Retry-After);
 * - a page whose client went away (`signal`) is cancelled on its stream;
 * - a stream that breaks sends its pages in flight to another stream (reads are idempotent),
 *   at most `maxFailovers` times each and only within their deadline, else 503;
 * - with no stream to send on (the service down), a page is 503 at once: never another 5xx;
 * - a stream holds at most `maxInFlightPerStream` pages; more wait in a queue of at most
 *   `maxQueued`, past which a page is 503 at once: memory stays bounded.
 */
export class PageStreamPool<Req, Res> {
  private readonly streams = new Set<Stream<Req, Res>>();
  private readonly queue: Pending<Req, Res>[] = [];
  private addresses: string[] = [];
  private readonly backoff = new Map<string, number>();
  private readonly reopening = new Map<string, NodeJS.Timeout>();
  private nextId = 1;
  private turn = 0;
  private closed = false;
  private readonly ticker: NodeJS.Timeout;
  private lastResolve = 0;
  private resolved = false;

  constructor(
    private readonly service: string,
    private readonly resolve: ResolveAddresses,
    private readonly open: OpenStream<Req, Res>,
    private readonly settings: PageStreamSettings,
    private readonly log: Logger,
    private readonly observer: PoolObserver = { failover: () => {}, recycle: () => {} },
    private readonly now: () => number = Date.now,
  ) {
    this.ticker = setInterval(() => this.tick(), Math.min(1_000, settings.resolveIntervalMs));
    this.ticker.unref();
    void this.refreshAddresses();
  }

  /**
   * One page from the service. Rejects with the service's AppError (invalid_cursor, ...), or
   * service_unavailable (with retryAfterSeconds) when no stream could answer in time.
   */
  page(order: PageOrder<Req>): Promise<Res> {
    if (this.closed) return Promise.reject(unavailable(`The ${this.service} client is closed.`));
    if (order.signal?.aborted) return Promise.reject(cancelled());
    return new Promise((resolve, reject) => {
      const pending: Pending<Req, Res> = {
        id: this.nextId++,
        order,
        deadline: this.now() + order.timeoutMs,
        failovers: 0,
        stream: undefined,
        timer: setTimeout(() => this.expire(pending), order.timeoutMs),
        resolve,
        reject,
        onAbort: () => this.settle(pending, cancelled()),
      };
      order.signal?.addEventListener('abort', pending.onAbort, { once: true });
      this.dispatch(pending);
    });
  }

  stats(): PoolStats {
    let streamsOpen = 0;
    let inFlight = 0;
    for (const s of this.streams) {
      if (s.state === 'open' || s.state === 'starting') streamsOpen++;
      inFlight += s.inFlight.size;
    }
    return { streamsOpen, inFlight, queued: this.queue.length };
  }

  /** Cancels every stream and fails what is pending with 503. */
  close(): void {
    this.closed = true;
    clearInterval(this.ticker);
    for (const timer of this.reopening.values()) clearTimeout(timer);
    for (const p of [...this.queue]) this.settle(p, unavailable('The gateway is shutting down.'));
    for (const stream of [...this.streams]) {
      for (const p of [...stream.inFlight.values()])
        this.settle(p, unavailable('The gateway is shutting down.'));
      stream.state = 'ended';
      stream.transport.cancel();
    }
    this.streams.clear();
  }

  private dispatch(pending: Pending<Req, Res>): void {
    const stream = this.pick();
    if (stream === undefined) {
      // Before the first resolution (a name being looked up at startup) a page waits for the
      // streams it will open; after it, no stream means no replica answers: 503 at once.
      if (this.resolved && !this.hasUsableStream())
        return this.settle(pending, unavailable(`No ${this.service} replica is reachable.`));
      if (this.queue.length >= this.settings.maxQueued)
        return this.settle(pending, unavailable(`Too many pages are waiting for ${this.service}.`));
      this.queue.push(pending);
      return;
    }
    pending.stream = stream;
    stream.inFlight.set(pending.id, pending);
    const { order } = pending;
    stream.transport.send({
      kind: {
        $case: 'call',
        value: {
          call_id: pending.id,
          request_id: order.requestId,
          timeout_ms: Math.max(1, pending.deadline - this.now()),
          traceparent: order.traceparent,
          tracestate: order.tracestate,
          page: order.page,
        },
      },
    });
  }

  /** The least busy stream with room, confirmed ones first, round robin among equals. */
  private pick(): Stream<Req, Res> | undefined {
    let best: Stream<Req, Res> | undefined;
    const all = [...this.streams];
    const n = all.length;
    this.turn = (this.turn + 1) % Math.max(1, n);
    for (let i = 0; i < n; i++) {
      const s = all[(this.turn + i) % n]!;
      if (s.state !== 'open' && s.state !== 'starting') continue;
      if (s.inFlight.size >= this.settings.maxInFlightPerStream) continue;
      if (
        best === undefined ||
        (s.state === 'open' && best.state === 'starting') ||
        (s.state === best.state && s.inFlight.size < best.inFlight.size)
      )
        best = s;
    }
    return best;
  }

  private hasUsableStream(): boolean {
    for (const s of this.streams) if (s.state === 'open' || s.state === 'starting') return true;
    return false;
  }

  /** Answers a page once, whatever raced (answer, deadline, abort, a broken stream). */
  private settle(pending: Pending<Req, Res>, outcome: Res | AppError): void {
    clearTimeout(pending.timer);
    pending.order.signal?.removeEventListener('abort', pending.onAbort);
    const stream = pending.stream;
    // Still in flight means withdrawn before its answer (deadline, abort): the service drops it.
    if (stream?.inFlight.delete(pending.id))
      stream.transport.send({ kind: { $case: 'cancel', value: { call_id: pending.id } } });
    pending.stream = undefined;
    const queued = this.queue.indexOf(pending);
    if (queued !== -1) this.queue.splice(queued, 1);
    if (outcome instanceof AppError) pending.reject(outcome);
    else pending.resolve(outcome);
    if (stream) this.afterRoomFreed(stream);
  }

  private expire(pending: Pending<Req, Res>): void {
    this.settle(
      pending,
      unavailable(`${this.service} did not answer within ${pending.order.timeoutMs} ms.`),
    );
  }

  private afterRoomFreed(stream: Stream<Req, Res>): void {
    if (stream.state === 'draining' && stream.inFlight.size === 0) stream.transport.finish();
    while (this.queue.length > 0) {
      const next = this.pick();
      if (next === undefined) return;
      const pending = this.queue.shift()!;
      this.dispatch(pending);
    }
  }

  private received(stream: Stream<Req, Res>, message: PageStreamResponse<Res>): void {
    const kind = message.kind;
    if (kind?.$case === 'draining') {
      this.retire(stream, false);
      return;
    }
    if (kind?.$case !== 'answer') return;
    const pending = stream.inFlight.get(kind.value.call_id);
    if (pending === undefined) return; // cancelled or expired already
    stream.inFlight.delete(pending.id);
    const outcome = kind.value.outcome;
    if (outcome?.$case === 'page') this.settle(pending, outcome.value);
    else if (outcome?.$case === 'failure') this.settle(pending, failureOf(outcome.value));
    else this.settle(pending, new AppError('internal_error', 'An internal error occurred.'));
  }

  /** A stream is over: its pages in flight go to another stream, or get 503. */
  private ended(stream: Stream<Req, Res>, error: Error | undefined): void {
    const wasOpen = stream.state === 'open' || stream.state === 'draining';
    stream.state = 'ended';
    this.streams.delete(stream);
    if (error !== undefined && stream.inFlight.size > 0) {
      const pages = stream.inFlight.size;
      this.log.warn({ address: stream.address, err: error, pages }, 'page stream broke');
    }
    const orphans = [...stream.inFlight.values()];
    stream.inFlight.clear();
    for (const pending of orphans) {
      pending.stream = undefined;
      const timeLeft = pending.deadline - this.now();
      if (pending.failovers < this.settings.maxFailovers && timeLeft > 0) {
        pending.failovers++;
        this.observer.failover();
        this.dispatch(pending);
      } else {
        this.settle(pending, unavailable(`The ${this.service} replica went away mid-page.`));
      }
    }
    if (error === undefined || wasOpen) this.backoff.delete(stream.address);
    this.replenish(stream.address);
  }

  /** Stops sending to a stream; it ends once its pages are answered. */
  private retire(stream: Stream<Req, Res>, recycled: boolean): void {
    if (stream.state !== 'open' && stream.state !== 'starting') return;
    stream.state = 'draining';
    if (recycled) this.observer.recycle();
    if (stream.inFlight.size === 0) stream.transport.finish();
    this.replenish(stream.address, !recycled);
  }

  /** Opens streams until the address has its count again (after a back-off when it failed). */
  private replenish(address: string, delayed = true): void {
    if (this.closed || !this.addresses.includes(address) || this.reopening.has(address)) return;
    const missing = this.settings.streamsPerAddress - this.liveCount(address);
    if (missing <= 0) return;
    const wait = delayed ? this.backoff.get(address) : undefined;
    if (wait === undefined) {
      for (let i = 0; i < missing; i++) this.openStream(address);
      if (delayed) this.backoff.set(address, MIN_BACKOFF_MS);
      return;
    }
    this.backoff.set(address, Math.min(MAX_BACKOFF_MS, wait * 2));
    this.reopening.set(
      address,
      setTimeout(() => {
        this.reopening.delete(address);
        if (this.closed || !this.addresses.includes(address)) return;
        const stillMissing = this.settings.streamsPerAddress - this.liveCount(address);
        for (let i = 0; i < stillMissing; i++) this.openStream(address);
      }, wait).unref(),
    );
  }

  private liveCount(address: string): number {
    let n = 0;
    for (const s of this.streams)
      if (s.address === address && (s.state === 'open' || s.state === 'starting')) n++;
    return n;
  }

  private openStream(address: string): void {
    const jitter = 0.8 + Math.random() * 0.4;
    const stream: Stream<Req, Res> = {
      address,
      state: 'starting',
      expiresAt: this.now() + this.settings.maxAgeMs * jitter,
      inFlight: new Map(),
      transport: undefined as unknown as StreamTransport<Req>,
    };
    this.streams.add(stream);
    stream.transport = this.open(address, {
      opened: () => {
        if (stream.state === 'starting') stream.state = 'open';
        this.backoff.delete(address);
      },
      message: (message) => this.received(stream, message),
      ended: (error) => this.ended(stream, error),
    });
    if (this.queue.length > 0) this.afterRoomFreed(stream);
  }

  private tick(): void {
    const now = this.now();
    for (const stream of [...this.streams]) {
      if (stream.state === 'open' && now >= stream.expiresAt) this.retire(stream, true);
    }
    if (now - this.lastResolve >= this.settings.resolveIntervalMs) void this.refreshAddresses();
  }

  private async refreshAddresses(): Promise<void> {
    this.lastResolve = this.now();
    let found: string[];
    try {
      found = await this.resolve();
    } catch (err) {
      this.log.warn(
        { err, service: this.service },
        `resolving the ${this.service} address failed; keeping the known replicas`,
      );
      return;
    }
    if (this.closed || found.length === 0) return;
    const gone = this.addresses.filter((a) => !found.includes(a));
    this.addresses = found;
    this.resolved = true;
    for (const stream of [...this.streams])
      if (gone.includes(stream.address)) this.retire(stream, false);
    for (const address of found) this.replenish(address, false);
  }
}
