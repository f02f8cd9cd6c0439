// The fault suite (`npm run test:faults`; FAULTS=short runs the subset scripts/test.sh runs). The
// whole system runs on infrastructure of its own under steady REST, MCP, plan and business-change
// traffic; one fault at a time is injected, and after each the promises of RELIABILITY.md are
// checked: no 5xx but 503 (with Retry-After), no lost plan, no lost event, duplicates only of an
// event id already delivered, the rate limit held, recovery within 10 s. The table of figures is
// printed at the end.
import { waitFor } from '@brand/testkit';
import { FAULTS } from './faultList';
import { formatTable } from './table';
import { startTraffic } from './traffic';
import { judge, type FaultResult } from './verdict';
import { startWorld, type World } from './world';

const RECOVERY_TARGET_SECONDS = 10;
/** Steady traffic after each fault: long enough to measure recovery against the target. */
const AFTER_MS = 12_000;
/** How long events accepted during a fault may take to reach the receiver afterwards. */
const DRAIN_MS = 60_000;

const selected = process.env.FAULTS === 'short' ? FAULTS.filter((f) => f.short) : FAULTS;
const only = process.env.FAULTS_ONLY; // e.g. FAULTS_ONLY=Redis: the faults whose name has it
const faults = only ? selected.filter((f) => f.name.includes(only)) : selected;

let world: World;
const results: FaultResult[] = [];

beforeAll(async () => {
  world = await startWorld();
}, 300_000);

afterAll(async () => {
  if (results.length > 0)
    process.stdout.write(`\nFault suite (${faults.length} faults):\n${formatTable(results)}\n\n`);
  await world?.close();
}, 120_000);

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(faults.map((f) => [f.name, f] as const))('%s', (_name, fault) => {
  let result: FaultResult;

  beforeAll(async () => {
    const main = await world.newBrand('enterprise', 200);
    const probe = await world.newBrand('plus', 0);
    const traffic = startTraffic(world, main, probe);
    await pause(fault.warmMs);
    const healedAt = await fault.inject(world);
    await pause(Math.max(0, healedAt + AFTER_MS - Date.now()));
    await traffic.stop();
    const accepted = traffic.log.changes.map((c) => c.eventId);
    await waitFor(() => accepted.every((id) => world.deliveredAt.has(id)), {
      timeoutMs: DRAIN_MS,
      intervalMs: 250,
    }).catch(() => undefined); // the verdict counts what is missing
    result = await judge({ fault: fault.name, world, log: traffic.log, main, healedAt });
    results.push(result);
  }, 300_000);

  it('answers no 5xx but 503 with Retry-After', () => expect(result.bad5xx).toBe(0));
  it('loses no plan that was answered 2xx', () => expect(result.lostPlans).toBe(0));
  it('delivers every accepted change’s event, verified', () => {
    expect(result.lostEvents).toBe(0);
    expect(result.unverified).toBe(0);
  });
  it('repeats only event ids of real changes (at-least-once)', () =>
    expect(result.strangers).toBe(0));
  it('holds the rate limit: no 60 s window above the budget', () =>
    expect(result.probeMaxPerWindow).toBeLessThanOrEqual(result.probeBudget));
  it(`recovers within ${RECOVERY_TARGET_SECONDS} s`, () =>
    expect(result.recoverySeconds).toBeLessThanOrEqual(RECOVERY_TARGET_SECONDS));
});
