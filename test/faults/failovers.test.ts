// Failovers of the managed services under the same traffic and promises as the fault suite
// (issue 60; RELIABILITY.md "Failovers of managed services"): a PostgreSQL primary lost and its
// synchronous standby promoted, a Redis primary lost and its replica promoted, each behind a TCP
// proxy standing for the managed endpoint's DNS name, and one of three Kafka brokers lost
// (replication 3, min.insync.replicas 2). Nothing answered 2xx is lost, no 5xx but 503 with
// Retry-After, and requests and deliveries are back within seconds of the failover's end.
// FAULTS=short runs the PostgreSQL failover only (on one broker); FAULTS_ONLY=<name part> picks
// by name.
import { FAILOVERS } from './failoverList';
import { startReplicatedInfra, type ReplicatedInfra } from './infra';
import { itKeepsThePromises } from './promises';
import { formatTable } from './table';
import { underTraffic } from './underTraffic';
import type { FaultResult } from './verdict';
import { startWorldOn, type World } from './world';

const WARM_MS = 3_000;
const AFTER_MS = 12_000;

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

// jest refuses describe.each of no rows, and FAULTS_ONLY may select none of these
if (failovers.length === 0) it.skip('no failover selected', () => undefined);
else describeFailovers();

function describeFailovers(): void {
  describe.each(failovers.map((f) => [f.name, f] as const))('%s', (_name, failover) => {
    let result: FaultResult & { failoverSeconds: number };

    beforeAll(async () => {
      let lostAt = 0;
      let healedAt = 0;
      const judged = await underTraffic(world!, {
        name: failover.name,
        warmMs: WARM_MS,
        afterMs: AFTER_MS,
        inject: async () => {
          const times = await failover.inject(world!);
          ({ lostAt, healedAt } = times);
          return healedAt;
        },
      });
      result = { ...judged, failoverSeconds: Math.round((healedAt - lostAt) / 100) / 10 };
      results.push(result);
    }, 300_000);

    itKeepsThePromises(() => result, failover.settleSeconds);
  });
}
