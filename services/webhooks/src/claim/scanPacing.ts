/**
 * When the worker searches the table for due deliveries (the scan), apart from what the feed
 * hands it by key (worker.ts). Pure state and a clock, so its rules are tested alone
 * (scanPacing.test.ts):
 * - unfed (no consumer in this process, or the feed off): scan at every turn;
 * - fed: scan every `pollMs`, and at once when something wants it: a claim failed, the feed
 *   dropped deliveries over its bounds, or receivers have a backlog (due deliveries the feed
 *   did not hold: retries come due, recoveries, another process's, a failing receiver's
 *   catch-up after its 2xx), until a complete scan finds each of them drained.
 */
export class ScanPacing {
  private fed = false;
  private wanted = true;
  private lastScanAt = Number.NEGATIVE_INFINITY;
  private readonly backlog = new Set<string>();

  constructor(
    private readonly pollMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The consumer of this process fed the worker: from now on the scan is paced. */
  markFed(): void {
    this.fed = true;
  }

  /** Whether this process's consumer feeds the worker (scans are paced). */
  isFed(): boolean {
    return this.fed;
  }

  /** Something may be in the table that the feed does not hold: scan at the next turn. */
  want(): void {
    this.wanted = true;
  }

  /** A receiver has due deliveries the feed does not hold: scan at every turn until drained. */
  addBacklog(receiverId: string): void {
    this.backlog.add(receiverId);
  }

  /** Milliseconds until a paced scan is due (0: now); how long an idle worker sleeps. */
  untilNextMs(): number {
    const since = this.now() - this.lastScanAt;
    return Math.max(0, Math.min(this.pollMs, this.pollMs - since));
  }

  /** Whether this turn scans. */
  due(): boolean {
    return !this.fed || this.wanted || this.backlog.size > 0 || this.untilNextMs() === 0;
  }

  /** A scan starts now. */
  started(): void {
    this.lastScanAt = this.now();
    this.wanted = false;
  }

  /**
   * What a scan found: `unfed` receivers had rows the feed did not hold (they join the
   * backlog). When the scan was `complete` (its limits left no receiver out), a receiver of
   * the backlog that it `scanned` and found nothing of is drained and leaves it.
   */
  found(
    receivers: ReadonlySet<string>,
    unfed: Iterable<string>,
    scan: { complete: boolean; scanned: (receiverId: string) => boolean },
  ): void {
    if (scan.complete)
      for (const id of this.backlog)
        if (!receivers.has(id) && scan.scanned(id)) this.backlog.delete(id);
    for (const id of unfed) this.backlog.add(id);
  }

  /** Receivers in the backlog (for tests and logs). */
  backlogged(): string[] {
    return [...this.backlog];
  }
}
