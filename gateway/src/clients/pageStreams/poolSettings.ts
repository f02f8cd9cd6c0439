/** The pool's settings (gateway config PAGE_STREAM_*; docs/internals.md "The page hop"). */
export interface PageStreamSettings {
  /** Streams kept open to each address of the service. */
  streamsPerAddress: number;
  /** Pages in flight on one stream; more wait in the queue (back-pressure). */
  maxInFlightPerStream: number;
  /** Pages that may wait for room on a stream; past it a page is refused with 503 at once. */
  maxQueued: number;
  /** A stream is replaced after this long (±20%), so traffic moves to new connections and replicas. */
  maxAgeMs: number;
  /** How often the service's address is resolved again (a scale-up is found within it). */
  resolveIntervalMs: number;
  /** Times a page is sent again on another stream after its stream broke (reads are idempotent). */
  maxFailovers: number;
}

/** One page to ask for, with what travels in its message besides the page. */
export interface PageOrder<Req> {
  page: Req;
  requestId: string;
  /** The page's whole time budget, failovers included. */
  timeoutMs: number;
  traceparent: string;
  tracestate: string;
  /** Aborted when nobody waits any more (the HTTP client went away): the page is cancelled. */
  signal?: Cancellation;
}

/**
 * What the pool reads of a cancellation: an AbortSignal, or anything as small. The list path
 * passes its own (http/clientGone.ts): an AbortController and its listener cost ~5-8 µs a page,
 * about 1 % of the gateway's CPU on the walk.
 */
export interface Cancellation {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** What the pool reports for /metrics. */
export interface PoolObserver {
  failover(): void;
  recycle(): void;
}

export interface PoolStats {
  streamsOpen: number;
  inFlight: number;
  queued: number;
}
