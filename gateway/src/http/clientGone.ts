import type { ServerResponse } from 'node:http';
import type { Cancellation } from '../clients/pageStreams/poolSettings';

/**
 * Aborts when the client goes away before its answer is written, so a page is withdrawn from
 * records (a cancel on its page stream) instead of being built for nobody. The Cancellation
 * an AbortController would give, without its EventTarget: one per list request, and the
 * controller with its listener cost ~5-8 µs a page (BENCHMARKS.md, issue 25).
 */
export class ClientGone implements Cancellation {
  aborted = false;
  private listeners: (() => void)[] = [];

  constructor(res: ServerResponse) {
    res.once('close', () => {
      if (res.writableFinished) return;
      this.aborted = true;
      const listeners = this.listeners;
      this.listeners = [];
      for (const listener of listeners) listener();
    });
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const i = this.listeners.indexOf(listener);
    if (i !== -1) this.listeners.splice(i, 1);
  }
}
