/**
 * How many entries an audit stream's next run may carry after its destination refused a run as
 * too large (413), kept on each run's events row beside its positions (batchRepo.ts RunRange).
 *
 * A refused run of N entries is sent again in halves at once, and N is remembered as `refused`.
 * Each run taken then grows the cap halfway toward `refused` (never twice the cap, never to
 * `refused` itself): a binary search between a size taken and a size refused, so a destination
 * whose limit stays below a full run settles just under it after a few 413s instead of being
 * refused about every other run (doubling straight back to the refused size, as before). A run
 * refused below the remembered size lowers it: the limit is in bytes, not entries, and a run of
 * larger entries may be refused under a size taken before; each such 413 lowers the memory, so
 * they stay rare and the memory never climbs back during the drain.
 *
 * Once the cap is one below `refused`, the refused size is tried once more: the limit may have
 * been transient (a proxy restarting, a burst of large entries). Taken, the memory is dropped and
 * the cap doubles back to the full size as before; refused again, the memory is `settled` and not
 * tried again until the drain ends. Without that try, one 413 from a passing hiccup would keep a
 * long drain at small runs; with it, a limit that stays costs one 413 more per drain.
 *
 * The memory lasts one drain: a run opened with fewer entries waiting than its cap allows (the
 * stream has caught up) forgets `refused` and `settled` (the cap itself doubles back as before),
 * and a disable, enable or new destination drops all of it (dropRunCap). Every refusal still
 * halves a run of 2+ at once, and a run of one entry refused goes the ordinary way
 * (setAsideWhenRoundSpent), so no entry is lost or sent out of order.
 */
export interface RunLimits {
  /** The entries a run may carry. */
  cap: number;
  /** The fewest entries of a run refused 413 in this drain: the cap stays below it. */
  refused?: number;
  /** `refused` was tried again once the cap reached one below it, and refused again. */
  settled?: boolean;
}

/** After a run of `entries` (2+) refused 413, with the limits the run carried (if any). */
export function limitsAfterTooLarge(entries: number, carried: RunLimits | undefined): RunLimits {
  const cap = Math.ceil(entries / 2);
  const known = carried?.refused;
  if (known === undefined) return { cap, refused: entries };
  // a run of the remembered size is the one try of it (limitsAfterSuccess): refused, it stays
  const settled = carried?.settled === true || entries >= known;
  return { cap, refused: Math.min(known, entries), ...(settled ? { settled } : {}) };
}

/** After a run carrying `limits` was taken (2xx). */
export function limitsAfterSuccess(limits: RunLimits): RunLimits {
  const { cap, refused, settled } = limits;
  // no memory, or the refused size taken on its try: doubling back to the full size
  if (refused === undefined || cap >= refused) return { cap: cap * 2 };
  if (cap + 1 < refused) {
    const grown = Math.min(cap * 2, Math.floor((cap + refused) / 2));
    return { cap: grown, refused, ...(settled ? { settled } : {}) };
  }
  return settled ? limits : { cap: refused, refused };
}

/**
 * The limits a run opened with `waiting` entries past what the stream was sent carries, or
 * `undefined` for a full-size run: the drain's memory is forgotten once fewer entries wait than
 * the cap allows, and a cap of `max` or more without a memory is dropped.
 */
export function limitsForRun(
  limits: RunLimits | undefined,
  waiting: number,
  max: number,
): RunLimits | undefined {
  if (limits === undefined) return undefined;
  const kept = waiting < limits.cap ? { cap: limits.cap } : limits;
  return kept.refused === undefined && kept.cap >= max ? undefined : kept;
}
