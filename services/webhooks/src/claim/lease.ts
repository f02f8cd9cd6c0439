/**
 * The lease rule, written once. A claim leases a row (a delivery, or a notice for the mailer)
 * to one worker until `lease_until`; the row is free again when it was never leased or the
 * lease ran out (its worker died or stalled). Every claim, scan and count says "free" with
 * this fragment, so no two of them can disagree on the instant a lease ends (a lease ending
 * exactly now is still held: `<`, never `<=`).
 */
export function leaseFree(alias?: string): string {
  const col = alias ? `${alias}.lease_until` : 'lease_until';
  return `(${col} is null or ${col} < now())`;
}

/** The opposite of leaseFree: a worker holds the row now. */
export function leaseHeld(alias?: string): string {
  return `not ${leaseFree(alias)}`;
}

/** The assignment that leases a row for the number of milliseconds in parameter `param`. */
export function leaseFor(param: string): string {
  return `lease_until = now() + ${param}::int * interval '1 millisecond'`;
}
