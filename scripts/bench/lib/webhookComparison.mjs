// Issues 46 and 64: webhooks side by side with W0, the sender a brand would build on
// graphile-worker (w0/main.mjs; BENCHMARKS.md "W0"), and W1, the one it would build on BullMQ
// (w1/main.mjs; "W1"). S6 (burst, then the paced ladder up to the knee), S6f and S6n each run
// through every system in interleaved rounds whose order rotates (ours, W0, W1; W1, ours, W0;
// W0, W1, ours; ...: over three rounds each system takes each seat once): each round starts its
// own rig (topic, records relay, receivers, sender) on the run's database, after a VACUUM
// (ANALYZE) that stands in for autovacuum (off on these machines). Every target is a ratio to
// the better peer of the same round (report.mjs: medians of the per-round ratios). The load
// average is kept beside every round: the machines are shared, and absolute figures move with
// it. A smoke run: one round, the peers through S6 only (a handful of deliveries, every one
// verified by the receivers), S6f and S6n through ours.
import os from 'node:os';
import { SETTINGS, say } from './settings.mjs';
import { SYSTEMS, vacuumBetweenRounds } from './webhookRig.mjs';
import { runWebhooksScenario } from './webhooks.mjs';
import { runFanOutScenario } from './webhookFanOut.mjs';
import { runNeighboursScenario } from './webhookNeighbours.mjs';

const load1 = () => Number(os.loadavg()[0].toFixed(2));

/** Round `r`'s order: the systems rotated by r - 1 (with two, they alternate). */
const roundOrder = (systems, r) => {
  const k = (r - 1) % systems.length;
  return [...systems.slice(systems.length - k), ...systems.slice(0, systems.length - k)];
};

/** `rounds` interleaved rounds of one scenario; each result gets the load at its start and end. */
async function interleave(ctx, name, rounds, systems, scenario) {
  const results = Object.fromEntries(systems.map((s) => [s, []]));
  for (let r = 1; r <= rounds; r++)
    // the order rotates: a later seat in a round runs on a database one rig fuller
    for (const system of roundOrder(systems, r)) {
      await vacuumBetweenRounds(ctx.dbUrl);
      const loadAtStart = load1();
      say(`${name} round ${r} of ${rounds}: ${system} (load ${loadAtStart})`);
      const result = await scenario(ctx, { system });
      results[system].push({ ...result, round: r, load: [loadAtStart, load1()] });
    }
  return results;
}

export async function runWebhookComparison(ctx) {
  const rounds = SETTINGS.w0Rounds;
  const smokeSystems = SETTINGS.smoke ? ['ours'] : SYSTEMS;
  // a burst through each system first, counted nowhere: the broker's JVM compiles its hot
  // paths and PostgreSQL reads the new database in under load, so the first round's first
  // system does not pay for warming what every later round finds warm
  if (!SETTINGS.smoke && rounds > 0 && SETTINGS.webhookWarmupChanges > 0)
    for (const system of SYSTEMS) {
      say(`S6 warm-up: ${system} (load ${load1()})`);
      await runWebhooksScenario(ctx, { system, warmup: true });
    }
  const s6 = await interleave(ctx, 'S6', rounds, SYSTEMS, runWebhooksScenario);
  const s6f = await interleave(ctx, 'S6f', rounds, smokeSystems, runFanOutScenario);
  const s6n = await interleave(ctx, 'S6n', SETTINGS.s6nRounds, smokeSystems, runNeighboursScenario);
  return { rounds, s6, s6f, s6n };
}
