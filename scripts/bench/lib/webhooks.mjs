// S6: business changes in, signed deliveries out. A records process with its outbox relay
// on (KAFKA_BROKERS), the webhooks service (consumer + worker + admin, production delivery
// settings), a Kafka topic and consumer group of this run on the local broker (deleted at
// the end), and 10 HTTPS receivers (webhookReceivers.mjs, a throwaway CA made with
// scripts/lib/testCa.sh, trusted through WEBHOOK_EXTRA_CA_FILE) all registered for one
// brand's submission.approved: every change is 10 deliveries.
//   - burst: SETTINGS.webhookBurstChanges approvals (admin RPC ApproveSubmission, 16 at a
//     time) as fast as records takes them; deliveries per second out, sustained = the
//     deliveries between the 10th and 90th percentile of receipt times over that span.
//   - paced: SETTINGS.webhookPacedRate approvals a second for webhookPacedSeconds; for every
//     delivery, receipt time at the receiver minus the event's created_at (the change's
//     transaction time, which the delivery body carries): commit-to-2xx, p50 and p99.
//   - both: the time split into the pipeline's stages (webhookStages.mjs).
// Validity: every (event, receiver) pair arrives (at-least-once: duplicates are counted).
import { createRequire } from 'node:module';
import { cpuOfBackendsOpen, cpuOfPid } from './arms.mjs';
import { percentile } from './load.mjs';
import { pipelineStages, stagesText } from './webhookStages.mjs';
import { createEnterpriseBrands, insertSubmissions } from './seed.mjs';
import { ADMIN_TOKEN, SETTINGS, round, say } from './settings.mjs';
import {
  approveAll,
  approvePaced,
  awaitDeliveries,
  deliveryLog,
  pendingSubmissions,
  refusedAndRetried,
  startWebhookRig,
  unary,
} from './webhookRig.mjs';
const require = createRequire(import.meta.url);
const { EventType } = require('@brand/proto/events/v1');

export async function runWebhooksScenario(ctx) {
  const receiversCount = SETTINGS.webhookReceivers;
  const burstChanges = SETTINGS.webhookBurstChanges;
  const pacedRate = SETTINGS.smoke ? 10 : SETTINGS.webhookPacedRate;
  const pacedChanges = pacedRate * SETTINGS.webhookPacedSeconds;
  const rig = await startWebhookRig(ctx, { count: receiversCount });
  const { topic, receivers, eventsRecords, webhooks, records, hooks, pipeline } = rig;
  const deliveries = deliveryLog(rig.control);
  const recordsAddress = rig.recordsAddress;
  try {
    const [brand] = await createEnterpriseBrands(recordsAddress, ADMIN_TOKEN, 1, {
      namePrefix: 'Webhooks Brand',
    });
    for (const [i, port] of receivers.listening.receivers.entries())
      await unary(hooks, 'addReceiver', {
        brand_id: brand.brandId,
        url: `https://127.0.0.1:${port}/hooks/${i}`,
        label: `bench receiver ${i}`,
        events: [EventType.EVENT_TYPE_SUBMISSION_APPROVED],
        actor_email: 'owner@bench.test',
      });
    await insertSubmissions(ctx.dbUrl, [brand.brandId], burstChanges + pacedChanges + 1, {
      status: 'pending',
    });
    const ids = await pendingSubmissions(ctx.dbUrl, brand.brandId);
    // one change end to end first: the pipeline is up (consumer joined, connections open)
    const [warm] = await approveAll(records, ids.slice(0, 1), 1);
    const warmed = await awaitDeliveries(deliveries, [warm], receiversCount, 60_000, pipeline);
    if (warmed.pairs < warmed.expected)
      throw new Error(
        `S6: the first change reached ${warmed.pairs} of ${receiversCount} receivers within 60 s`,
      );
    say(
      `S6: pipeline up (topic ${topic}, ${receiversCount} receivers); burst of ${burstChanges} changes`,
    );

    // --- burst: throughput out -----------------------------------------------------
    const cpu = {
      webhooks: cpuOfPid(webhooks.pid),
      'records (relay)': cpuOfPid(eventsRecords.pid),
      'postgres (webhooks)': cpuOfBackendsOpen(ctx.dbName, ['webhooks']),
      'postgres (records)': cpuOfBackendsOpen(ctx.dbName, ['records', 'records-outbox-relay']),
      receivers: cpuOfPid(receivers.pid),
    };
    // every reader as one figure each (the PostgreSQL ones look their backends up: async)
    const readCpu = async () =>
      Object.fromEntries(
        await Promise.all(Object.entries(cpu).map(async ([k, f]) => [k, await f()])),
      );
    const cpuBefore = await readCpu();
    const burstStart = Date.now();
    const burstEvents = await approveAll(records, ids.slice(1, 1 + burstChanges));
    const changesSeconds = (Date.now() - burstStart) / 1000;
    const burst = await awaitDeliveries(deliveries, burstEvents, receiversCount, 300_000, pipeline);
    const cpuAfter = await readCpu();
    const cpuMsPerDelivery = Object.fromEntries(
      Object.keys(cpu).map((k) => [
        k,
        round(((cpuAfter[k] - cpuBefore[k]) * 1000) / Math.max(1, burst.deliveries.length), 4),
      ]),
    );
    const times = burst.deliveries.map((d) => d[0]).sort((a, b) => a - b);
    const t10 = times[Math.floor(times.length * 0.1)];
    const t90 = times[Math.floor(times.length * 0.9) - 1] ?? times.at(-1);
    const sustained = (times.length * 0.8) / Math.max(0.001, (t90 - t10) / 1000);
    const burstFigures = {
      changes: burstEvents.length,
      changesPerSecond: round(burstEvents.length / changesSeconds, 1),
      deliveries: burst.deliveries.length,
      deliveriesPerSecond: round(sustained, 1),
      overallPerSecond: round(
        times.length / Math.max(0.001, (times.at(-1) - burstStart) / 1000),
        1,
      ),
      cpuMsPerDelivery,
    };
    say(
      `S6 burst: ${burstFigures.changes} changes at ${burstFigures.changesPerSecond}/s in; ${burst.deliveries.length} deliveries, ${burstFigures.deliveriesPerSecond}/s sustained out (${burstFigures.overallPerSecond}/s from the first change to the last delivery)`,
    );
    burstFigures.stages = await pipelineStages(ctx.dbUrl, burst.deliveries);
    say(`S6 burst stages p50/p99/max ms: ${stagesText(burstFigures.stages)}`);
    if (burst.pairs < burst.expected)
      ctx.invalid.push(
        `S6 burst: ${burst.pairs} of ${burst.expected} deliveries arrived within 300 s`,
      );

    // --- paced: commit-to-2xx latency ---------------------------------------------
    const paced = await approvePaced(records, ids.slice(1 + burstChanges), pacedRate);
    const pacedDone = await awaitDeliveries(
      deliveries,
      paced.events,
      receiversCount,
      120_000,
      pipeline,
    );
    const latencies = pacedDone.deliveries.map((d) => d[0] - d[2]).filter(Number.isFinite);
    const pacedFigures = {
      rate: pacedRate,
      changes: paced.events.length,
      achievedRate: round(paced.events.length / paced.seconds, 1),
      deliveries: pacedDone.deliveries.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: Math.max(...latencies),
      stages: await pipelineStages(ctx.dbUrl, pacedDone.deliveries),
    };
    say(
      `S6 paced: ${pacedFigures.changes} changes at ${pacedFigures.achievedRate}/s; commit-to-2xx p50 ${pacedFigures.p50} ms, p99 ${pacedFigures.p99} ms, max ${pacedFigures.max} ms`,
    );
    say(`S6 paced stages p50/p99/max ms: ${stagesText(pacedFigures.stages)}`);
    if (pacedDone.pairs < pacedDone.expected)
      ctx.invalid.push(
        `S6 paced: ${pacedDone.pairs} of ${pacedDone.expected} deliveries arrived within 120 s`,
      );
    const duplicates =
      burst.deliveries.length - burst.pairs + (pacedDone.deliveries.length - pacedDone.pairs);
    ctx.notes.push(
      `S6: ${receiversCount} receivers, topic ${topic}; ${duplicates} duplicate deliveries (at-least-once); ${refusedAndRetried.count} changes refused as unavailable and retried`,
    );
    return { burst: burstFigures, paced: pacedFigures, duplicates };
  } finally {
    await rig.stop();
  }
}
