/**
 * A bound on how many of one kind of work a key (a brand) runs at once in this process: the
 * console's exports and the SCIM lists it filters itself, each heavy for as long as it runs and
 * shared by every brand (a hostile review of 2026-12-01). Per process: with N console replicas a
 * brand gets N times the places.
 */
export class PlacesByKey {
  private readonly taken = new Map<string, number>();

  constructor(private readonly places: number) {}

  /**
   * Runs `work` in one of `key`'s places, given back when it settles; with none free, calls
   * `refuse` (which throws the caller's refusal) without running it.
   */
  async run<T>(key: string, work: () => Promise<T>, refuse: () => never): Promise<T> {
    const inUse = this.taken.get(key) ?? 0;
    if (inUse >= this.places) refuse();
    this.taken.set(key, inUse + 1);
    try {
      return await work();
    } finally {
      const left = (this.taken.get(key) ?? 1) - 1;
      if (left > 0) this.taken.set(key, left);
      else this.taken.delete(key);
    }
  }
}
