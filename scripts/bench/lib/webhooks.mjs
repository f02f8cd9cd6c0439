// S6: business changes in, signed deliveries out, through one of two senders (issue 46): ours
// (the webhooks service: consumer + worker + admin, production delivery settings) or W0 (the
// sender a brand would build on graphile-worker, w0/main.mjs), in rounds the comparison
// interleaves (webhookComparison.mjs). A records process with its outbox relay on
// (KAFKA_BROKERS), a Kafka topic and consumer group of the round on the local broker (deleted at
// the end), and 10 HTTPS receivers (webhookReceivers.mjs, a throwaway CA made with
// scripts/lib/testCa.sh; each verifies every delivery's signature) all registered for one
// brand's submission.approved: every change is 10 deliveries.
//   - burst: SETTINGS.webhookBurstChanges approvals (admin RPC ApproveSubmission, 16 at a
//     time) as fast as records takes them; deliveries per second out, sustained = the
//     deliveries between the 10th and 90th percentile of receipt times over that span; CPU per
//     delivery of every process on the way (the rig's cpuReaders).
//   - paced: a ladder of levels (SETTINGS.webhookPacedRate, today's load, then
//     webhookKneeRates, climbing), each webhookPacedSeconds of approvals at that rate; for every
//     delivery, receipt time at the receiver minus the event's created_at (the change's
//     transaction time, which the delivery body carries): commit-to-2xx, p50 and p99. The knee
//     is the first level whose p99 passes 1 s.
//   - ours only: the time split into the pipeline's stages (webhookStages.mjs).
// Validity: every (event, receiver) pair arrives (at-least-once: duplicates are counted), and
// no receiver refused a signature.
import { percentile } from './load.mjs';
import { pipelineStages, stagesText } from './webhookStages.mjs';
import { createEnterpriseBrands, insertSubmissions } from './seed.mjs';
import { ADMIN_TOKEN, SETTINGS, TARGETS, round, say } from './settings.mjs';
import {
  isTeamBuild,
  approveAll,
  approvePaced,
  awaitDeliveries,
  deliveryLog,
  pendingSubmissions,
  refusedAndRetried,
  startWebhookRig,
} from './webhookRig.mjs';

/** CPU ms per delivery of each reader between two readings. */
const perDelivery = (before, after, deliveries) =>
  Object.fromEntries(
    Object.keys(before).map((k) => [
      k,
      round(((after[k] - before[k]) * 1000) / Math.max(1, deliveries), 4),
    ]),
  );

/** Deliveries a second between the 10th and 90th percentile of receipt times. */
export function sustainedRate(deliveries) {
  const times = deliveries.map((d) => d[0]).sort((a, b) => a - b);
  const t10 = times[Math.floor(times.length * 0.1)];
  const t90 = times[Math.floor(times.length * 0.9) - 1] ?? times.at(-1);
  return { times, perSecond: (times.length * 0.8) / Math.max(0.001, (t90 - t10) / 1000) };
}

/** Every reader of `cpu` read now, as one object (the PostgreSQL ones are async). */
export const readCpu = async (cpu) =>
  Object.fromEntries(await Promise.all(Object.entries(cpu).map(async ([k, f]) => [k, await f()])));

/** The levels of one round's ladder, in changes a second, in the order they run. */
function ladder(p99At) {
  const base = [SETTINGS.smoke ? 10 : SETTINGS.webhookPacedRate, ...SETTINGS.webhookKneeRates];
  return {
    base,
    /** The next level after the base ones, or undefined: 300 above a held top, 50 below. */
    next(done) {
      const top = base.at(-1);
      const upper = SETTINGS.webhookKneeUpper;
      if (upper && !done.has(upper) && p99At(top) <= TARGETS.s6KneeP99Ms) return upper;
      const lower = SETTINGS.webhookKneeLower;
      if (lower && !done.has(lower) && p99At(base[0]) > TARGETS.s6KneeP99Ms) return lower;
      return undefined;
    },
  };
}

/**
 * S6 through one system: the burst, then the paced ladder. `warmup`: a burst of
 * SETTINGS.webhookWarmupChanges only, measured by nothing, so that the first round of a run
 * does not meet a cold broker and database that the later ones find warm.
 */
export async function runWebhooksScenario(ctx, { system = 'ours', warmup = false } = {}) {
  const receiversCount = SETTINGS.webhookReceivers;
  const burstChanges = warmup ? SETTINGS.webhookWarmupChanges : SETTINGS.webhookBurstChanges;
  const seconds = SETTINGS.webhookPacedSeconds;
  const levelsAtMost = warmup
    ? []
    : [
        SETTINGS.smoke ? 10 : SETTINGS.webhookPacedRate,
        ...SETTINGS.webhookKneeRates,
        SETTINGS.webhookKneeUpper,
        SETTINGS.webhookKneeLower,
      ];
  const pacedChanges = levelsAtMost.reduce((sum, rate) => sum + rate * seconds, 0);
  const label = `S6 ${system}${warmup ? ' warm-up' : ''}`;
  const rig = await startWebhookRig(ctx, { count: receiversCount, system });
  const { topic, records, pipeline } = rig;
  const deliveries = deliveryLog(rig.control);
  try {
    const [brand] = await createEnterpriseBrands(rig.recordsAddress, ADMIN_TOKEN, 1, {
      namePrefix: 'Webhooks Brand',
    });
    for (let i = 0; i < receiversCount; i++) await rig.addReceiver(brand.brandId, i);
    await insertSubmissions(ctx.dbUrl, [brand.brandId], burstChanges + pacedChanges + 1, {
      status: 'pending',
    });
    const ids = await pendingSubmissions(ctx.dbUrl, brand.brandId);
    let next = 0;
    const take = (n) => ids.slice(next, (next += n));
    // one change end to end first: the pipeline is up (consumer joined, connections open)
    const [warm] = await approveAll(records, take(1), 1);
    const warmed = await awaitDeliveries(deliveries, [warm], receiversCount, 60_000, pipeline);
    if (warmed.pairs < warmed.expected)
      throw new Error(
        `${label}: the first change reached ${warmed.pairs} of ${receiversCount} receivers within 60 s`,
      );
    say(
      `${label}: pipeline up (topic ${topic}, ${receiversCount} receivers); burst of ${burstChanges} changes`,
    );

    // --- burst: throughput out -----------------------------------------------------
    const cpu = rig.cpuReaders();
    const cpuBefore = await readCpu(cpu);
    const burstStart = Date.now();
    const burstEvents = await approveAll(records, take(burstChanges));
    const changesSeconds = (Date.now() - burstStart) / 1000;
    const burst = await awaitDeliveries(deliveries, burstEvents, receiversCount, 300_000, pipeline);
    const cpuAfter = await readCpu(cpu);
    const { times, perSecond } = sustainedRate(burst.deliveries);
    const burstFigures = {
      changes: burstEvents.length,
      changesPerSecond: round(burstEvents.length / changesSeconds, 1),
      deliveries: burst.deliveries.length,
      deliveriesPerSecond: round(perSecond, 1),
      overallPerSecond: round(
        times.length / Math.max(0.001, (times.at(-1) - burstStart) / 1000),
        1,
      ),
      cpuMsPerDelivery: perDelivery(cpuBefore, cpuAfter, burst.deliveries.length),
    };
    say(
      `${label} burst: ${burstFigures.changes} changes at ${burstFigures.changesPerSecond}/s in; ${burst.deliveries.length} deliveries, ${burstFigures.deliveriesPerSecond}/s sustained out (${burstFigures.overallPerSecond}/s from the first change to the last delivery); CPU ms/delivery ${JSON.stringify(burstFigures.cpuMsPerDelivery)}`,
    );
    if (!isTeamBuild(system)) {
      burstFigures.stages = await pipelineStages(ctx.dbUrl, burst.deliveries);
      say(`${label} burst stages p50/p99/max ms: ${stagesText(burstFigures.stages)}`);
    }
    if (burst.pairs < burst.expected)
      ctx.invalid.push(
        `${label} burst: ${burst.pairs} of ${burst.expected} deliveries arrived within 300 s`,
      );
    if (warmup) return undefined;

    // --- paced: commit-to-2xx latency at each level of the ladder --------------------
    const levels = [];
    const p99At = (rate) => levels.find((l) => l.rate === rate)?.p99 ?? Number.NaN;
    const plan = ladder(p99At);
    const runLevel = async (rate) => {
      const before = await readCpu(cpu);
      const paced = await approvePaced(records, take(rate * seconds), rate);
      const done = await awaitDeliveries(
        deliveries,
        paced.events,
        receiversCount,
        180_000,
        pipeline,
      );
      const after = await readCpu(cpu);
      const latencies = done.deliveries.map((d) => d[0] - d[2]).filter(Number.isFinite);
      const level = {
        rate,
        deliveriesRate: rate * receiversCount,
        changes: paced.events.length,
        achievedRate: round(paced.events.length / paced.seconds, 1),
        refused: paced.refused,
        deliveries: done.deliveries.length,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: Math.max(...latencies),
        cpuMsPerDelivery: perDelivery(before, after, done.deliveries.length),
      };
      if (!isTeamBuild(system) && rate === plan.base[0])
        level.stages = await pipelineStages(ctx.dbUrl, done.deliveries);
      say(
        `${label} paced ${level.deliveriesRate} deliveries/s: ${level.changes} changes at ${level.achievedRate}/s${level.refused ? ` (${level.refused} refused by records)` : ''}; commit-to-2xx p50 ${level.p50} ms, p99 ${level.p99} ms, max ${level.max} ms; CPU ms/delivery ${JSON.stringify(level.cpuMsPerDelivery)}${level.stages ? `; stages p50/p99/max ms: ${stagesText(level.stages)}` : ''}`,
      );
      if (done.pairs < done.expected)
        ctx.invalid.push(
          `${label} paced ${level.deliveriesRate}/s: ${done.pairs} of ${done.expected} deliveries arrived within 180 s`,
        );
      levels.push(level);
      return done;
    };
    let duplicates = burst.deliveries.length - burst.pairs;
    for (const rate of plan.base) {
      const done = await runLevel(rate);
      duplicates += done.deliveries.length - done.pairs;
    }
    const ran = new Set(plan.base);
    for (let rate = plan.next(ran); rate !== undefined; rate = plan.next(ran)) {
      ran.add(rate);
      const d = await runLevel(rate);
      duplicates += d.deliveries.length - d.pairs;
    }
    levels.sort((a, b) => a.rate - b.rate);
    const verified = await rig.checkSignatures(ctx.invalid, label);
    ctx.notes.push(
      `${label}: ${receiversCount} receivers, topic ${topic}; ${duplicates} duplicate deliveries (at-least-once); ${verified} signatures verified by the receivers; ${refusedAndRetried.count} changes refused as unavailable and retried so far`,
    );
    return {
      system,
      burst: burstFigures,
      paced: levels.find((l) => l.rate === plan.base[0]),
      levels,
      knee: knee(levels),
      duplicates,
      verified,
    };
  } finally {
    await rig.stop();
  }
}

/**
 * Where the p99 passes 1 s: `passedAt`, the lowest level (deliveries/s) whose p99 did (null
 * when none did), and `heldAt`, the highest level below it whose p99 held.
 */
function knee(levels) {
  const passed = levels.find((l) => !(l.p99 <= TARGETS.s6KneeP99Ms));
  const held = levels.filter(
    (l) => l.p99 <= TARGETS.s6KneeP99Ms && (!passed || l.rate < passed.rate),
  );
  return {
    passedAt: passed ? passed.deliveriesRate : null,
    heldAt: held.length > 0 ? held.at(-1).deliveriesRate : null,
  };
}
