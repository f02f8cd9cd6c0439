// The promises of RELIABILITY.md each fault's run is held to, as one set of tests: the fault
// suite's faults and its failovers declare them alike.
import type { FaultResult } from './verdict';

/** The suite's recovery target (RELIABILITY.md "Recovery in seconds"). */
export const RECOVERY_TARGET_SECONDS = 10;

/**
 * Declares the tests of one run's verdict (`result()` is read when they run). Recovery is
 * held to the target plus `settleSeconds`, the time the fault takes on its own after it is over.
 */
export function itKeepsThePromises(result: () => FaultResult, settleSeconds = 0): void {
  it('answers no 5xx but 503 with Retry-After', () => expect(result().bad5xx).toBe(0));
  it('loses no plan that was answered 2xx', () => expect(result().lostPlans).toBe(0));
  it('delivers every accepted change’s event, verified', () => {
    expect(result().lostEvents).toBe(0);
    expect(result().unverified).toBe(0);
  });
  it('repeats only event ids of real changes (at-least-once)', () =>
    expect(result().strangers).toBe(0));
  it('holds the rate limit: no 60 s window above the budget', () =>
    expect(result().probeMaxPerWindow).toBeLessThanOrEqual(result().probeBudget));
  it(`recovers within ${settleSeconds + RECOVERY_TARGET_SECONDS} s of the fault’s end`, () =>
    expect(result().recoverySeconds).toBeLessThanOrEqual(settleSeconds + RECOVERY_TARGET_SECONDS));
}
