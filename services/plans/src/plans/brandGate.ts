/**
 * One turn at a time per brand, in this process, for the work that takes the brand's plan lock.
 * Only one request of a brand can hold that lock, so a second one in the database would only
 * sit on a pooled connection waiting for it; here it waits in memory instead, and one brand's
 * burst holds at most one connection of the pool (issue: a brand's waiters took all ten and
 * other brands got 503). Turns are first come, first served; a waiter whose deadline passes
 * before its turn leaves the queue and is told so (`undefined`).
 */
export class BrandGate {
  private readonly queues = new Map<string, Array<() => void>>();

  /**
   * Waits for the brand's turn until `deadline` (epoch ms). Resolves with the function that
   * ends the turn (call it exactly once), or undefined when the deadline passed first.
   */
  async enter(brandId: string, deadline: number): Promise<(() => void) | undefined> {
    const queue = this.queues.get(brandId);
    if (!queue) {
      this.queues.set(brandId, []);
      return this.turn(brandId);
    }
    return new Promise((resolve) => {
      const grant = (): void => {
        clearTimeout(timer);
        resolve(this.turn(brandId));
      };
      const timer = setTimeout(
        () => {
          const at = queue.indexOf(grant);
          if (at >= 0) queue.splice(at, 1);
          resolve(undefined);
        },
        Math.max(0, deadline - Date.now()),
      );
      queue.push(grant);
    });
  }

  private turn(brandId: string): () => void {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.leave(brandId);
    };
  }

  private leave(brandId: string): void {
    const queue = this.queues.get(brandId);
    const next = queue?.shift();
    if (next) next();
    else this.queues.delete(brandId);
  }
}
