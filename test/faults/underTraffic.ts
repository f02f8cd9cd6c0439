// One run of the suite's traffic around an injected event (a fault, a failover, a migration):
// two fresh brands, steady traffic, the event, more traffic, the drain of every accepted
// change's event, and the verdict.
import { waitFor } from '@brand/testkit';
import { startTraffic } from './traffic';
import { judge, type FaultResult } from './verdict';
import type { AnyWorld } from './world';

/** How long events accepted during the run may take to reach the receiver afterwards. */
const DRAIN_MS = 60_000;

/**
 * `inject` resolves with the moment the event was over (ms since the epoch), from which recovery
 * is measured; the traffic goes on until `afterMs` past it.
 */
export async function underTraffic(
  world: AnyWorld,
  run: { name: string; warmMs: number; afterMs: number; inject: () => Promise<number> },
): Promise<FaultResult> {
  const main = await world.newBrand('enterprise', 200);
  const probe = await world.newBrand('plus', 0);
  const traffic = startTraffic(world, main, probe);
  await new Promise((r) => setTimeout(r, run.warmMs));
  const healedAt = await run.inject();
  await new Promise((r) => setTimeout(r, Math.max(0, healedAt + run.afterMs - Date.now())));
  await traffic.stop();
  const accepted = traffic.log.changes.map((c) => c.eventId);
  await waitFor(() => accepted.every((id) => world.deliveredAt.has(id)), {
    timeoutMs: DRAIN_MS,
    intervalMs: 250,
  }).catch(() => undefined); // the verdict counts what is missing
  return judge({ fault: run.name, world, log: traffic.log, main, healedAt });
}
