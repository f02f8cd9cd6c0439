// Failovers of the managed services under the same traffic and promises as the fault suite
// (issue 60; RELIABILITY.md "Failovers"): a PostgreSQL primary lost and its synchronous standby
// promoted, a Redis primary lost and its replica promoted, each behind a TCP proxy standing for
// the managed endpoint's DNS name, and one of three Kafka brokers lost (replication 3,
// min.insync.replicas 2). Nothing answered 2xx is lost, no 5xx but 503 with Retry-After, and
// requests and deliveries are back within seconds of the failover's end. FAULTS=short runs the
// PostgreSQL failover only (on one broker); FAULTS_ONLY=<name part> picks by name.
import { waitFor } from '@brand/testkit';
import { FAILOVERS } from './failoverList';
import { startReplicatedInfra, type ReplicatedInfra } from './infra';
import { formatTable } from './table';
import { startTraffic } from './traffic';
import { judge, type FaultResult } from './verdict';
import { startWorldOn, type World } from './world';

const RECOVERY_TARGET_SECONDS = 10;
const WARM_MS = 3_000;
const AFTER_MS = 12_000;
const DRAIN_MS = 60_000;

const selected = process.env.FAULTS === 'short' ? FAILOVERS.filter((f) => f.short) : FAILOVERS;
const only = process.env.FAULTS_ONLY;
const failovers = only ? selected.filter((f) => f.name.includes(only)) : selected;

let world: World<ReplicatedInfra> | undefined;
const results: Array<FaultResult & { failoverSeconds: number }> = [];

beforeAll(async () => {
  if (failovers.length === 0) return;
  const kafkaBrokers = failovers.some((f) => f.threeBrokers) ? 3 : 1;
  world = await startWorldOn(() => startReplicatedInfra({ kafkaBrokers }));
}, 300_000);

afterAll(async () => {
  if (results.length > 0)
    process.stdout.write(
      `\nFailovers (${results.length}):\n${formatTable(results)}\n` +
        results
          .map((r) => `${r.fault}: the failover itself took ${r.failoverSeconds} s\n`)
          .join('') +
        '\n',
    );
  await world?.close();
}, 180_000);

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (failovers.length === 0) it.skip('no failover selected', () => undefined);

describe.each(failovers.map((f) => [f.name, f] as const))('%s', (_name, failover) => {
  let result: FaultResult & { failoverSeconds: number };

  beforeAll(async () => {
    const w = world!;
    const main = await w.newBrand('enterprise', 200);
    const probe = await w.newBrand('plus', 0);
    const traffic = startTraffic(w, main, probe);
    await pause(WARM_MS);
    const { lostAt, healedAt } = await failover.inject(w);
    await pause(Math.max(0, healedAt + AFTER_MS - Date.now()));
    await traffic.stop();
    const accepted = traffic.log.changes.map((c) => c.eventId);
    await waitFor(() => accepted.every((id) => w.deliveredAt.has(id)), {
      timeoutMs: DRAIN_MS,
      intervalMs: 250,
    }).catch(() => undefined); // the verdict counts what is missing
    const judged = await judge({
      fault: failover.name,
      world: w,
      log: traffic.log,
      main,
      healedAt,
    });
    result = { ...judged, failoverSeconds: Math.round((healedAt - lostAt) / 100) / 10 };
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
  it(`recovers within ${RECOVERY_TARGET_SECONDS} s of the failover’s end`, () =>
    expect(result.recoverySeconds).toBeLessThanOrEqual(
      failover.settleSeconds + RECOVERY_TARGET_SECONDS,
    ));
});
