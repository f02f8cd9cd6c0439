import { EventEmitter } from 'node:events';

/**
 * An attempt's whole deadline (connect, send, the answer's headers and its excerpt) as the
 * signal undici's request takes: undici accepts an EventEmitter with `aborted`, `reason` and an
 * 'abort' event besides an AbortSignal (it listens with `once` and removes the listener when
 * the answer is read). Why not an AbortController: its signal is an EventTarget, and making one
 * with undici's listener added and removed took 12.5 us an attempt against 2.7 for this
 * (a node micro-benchmark on the machine S6 ran on, 2026-11-27), at 1,000 attempts a second.
 * Not AbortSignal.timeout either: its timer cannot be cleared, so at 1,000 deliveries a second
 * 30,000 of them stayed armed, weakly held, for the GC to trace.
 */
export class AttemptDeadline extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    super();
    this.timer = setTimeout(() => {
      this.aborted = true;
      // the name describeNoResponse (sendErrors.ts) reads as a timeout
      this.reason = new DOMException('the attempt timed out', 'TimeoutError');
      this.emit('abort');
    }, ms);
  }

  /** The attempt is over: the deadline no longer fires. */
  clear(): void {
    clearTimeout(this.timer);
  }
}
