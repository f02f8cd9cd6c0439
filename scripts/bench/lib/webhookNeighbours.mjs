// S6n (issue 34, fair delivery): a fast receiver's commit-to-2xx latency while 50 receivers of
// 5 other brands hang to the timeout (their sockets held open, never answered) with 1,000
// deliveries queued among them, against the same receiver alone, in the same run and the same
// processes. The baseline is the receiver alone on this pipeline: what its brand sees on a
// quiet platform.
//   - alone: SETTINGS.neighbourRate changes a second on the fast brand for neighbourSeconds;
//   - beside: the 50 receivers switched to hang, SETTINGS.neighbourQueuedPerBrand changes on
//     each of their brands (x 10 receivers = 1,000 deliveries), and once their sockets are
//     held, the same paced changes on the fast brand.
// Through ours, W0 or W1 (issues 46, 64: the comparison runs all three). W0 and W1 run jobs
// first come first served across receivers, so their fast receiver waits behind the hanging
// receivers' queue: its deliveries beside them are waited for SETTINGS.s6nW0WaitSeconds, and
// those not arrived by then are reported (their latency is at least that wait), not counted as
// an invalid run. Validity: every fast delivery arrives (ours; W0 and W1 alone); the hanging
// receivers held sockets through the phase (ours: 4 each, its per-receiver limit; W0, W1: as
// many as their concurrency).
import { createEnterpriseBrands, insertSubmissions } from './seed.mjs';
import { percentile } from './load.mjs';
import { ADMIN_TOKEN, SETTINGS, say } from './settings.mjs';
import {
  isTeamBuild,
  approveAll,
  approvePaced,
  awaitDeliveries,
  deliveryLog,
  pendingSubmissions,
  sleep,
  startWebhookRig,
} from './webhookRig.mjs';

const RECEIVERS_PER_BRAND = 10;

export async function runNeighboursScenario(ctx, { system = 'ours' } = {}) {
  const hangingBrands = SETTINGS.neighbourHangingBrands;
  const hangingCount = hangingBrands * RECEIVERS_PER_BRAND;
  const paced = SETTINGS.neighbourRate * SETTINGS.neighbourSeconds;
  const label = `S6n ${system}`;
  const rig = await startWebhookRig(ctx, { count: 1 + hangingCount, system });
  const deliveries = deliveryLog(rig.control);
  try {
    const brands = await createEnterpriseBrands(
      rig.recordsAddress,
      ADMIN_TOKEN,
      1 + hangingBrands,
      {
        namePrefix: 'Neighbours Brand',
      },
    );
    const [fast, ...others] = brands;
    const addReceiver = (brandId, i) => rig.addReceiver(brandId, i);
    await addReceiver(fast.brandId, 0);
    for (const [b, brand] of others.entries())
      for (let r = 0; r < RECEIVERS_PER_BRAND; r++)
        await addReceiver(brand.brandId, 1 + b * RECEIVERS_PER_BRAND + r);
    await insertSubmissions(
      ctx.dbUrl,
      brands.map((b) => b.brandId),
      Math.max(2 * paced + 1, SETTINGS.neighbourQueuedPerBrand),
      { status: 'pending' },
    );
    const fastIds = await pendingSubmissions(ctx.dbUrl, fast.brandId);
    const [warm] = await approveAll(rig.records, fastIds.slice(0, 1), 1);
    await awaitDeliveries(deliveries, [warm], 1, 60_000, rig.pipeline);

    const measure = async (ids, waitMs = 120_000) => {
      const { events } = await approvePaced(rig.records, ids, SETTINGS.neighbourRate);
      const done = await awaitDeliveries(deliveries, events, 1, waitMs, rig.pipeline);
      const latencies = done.deliveries.map((d) => d[0] - d[2]).filter(Number.isFinite);
      // a delivery that has not arrived counts as the slowest (its latency is above the wait)
      const missing = done.expected - done.pairs;
      for (let i = 0; i < missing; i++) latencies.push(Number.POSITIVE_INFINITY);
      const finite = (x) => (Number.isFinite(x) ? x : null);
      return {
        deliveries: done.pairs,
        expected: done.expected,
        waitedSeconds: waitMs / 1000,
        p50: finite(percentile(latencies, 50)),
        p99: finite(percentile(latencies, 99)),
        max: finite(Math.max(...latencies)),
      };
    };
    const alone = await measure(fastIds.slice(1, 1 + paced));
    say(`${label} alone: ${alone.deliveries} deliveries, p50 ${alone.p50} ms, p99 ${alone.p99} ms`);

    // 50 receivers hang from now on; 1,000 deliveries are queued among them
    await rig.setMode(1, 1 + hangingCount, 'hang');
    const queuedIds = [];
    for (const brand of others)
      queuedIds.push(
        ...(await pendingSubmissions(ctx.dbUrl, brand.brandId)).slice(
          0,
          SETTINGS.neighbourQueuedPerBrand,
        ),
      );
    await approveAll(rig.records, queuedIds);
    // the steady state the scenario is about: every hanging receiver holds its four places
    // (DELIVERY_PER_RECEIVER_CONCURRENCY) and no more sockets are opening; W0's and W1's every
    // job slot holds one (their concurrency)
    const peerSlots = { W0: SETTINGS.w0Concurrency, W1: SETTINGS.w1Concurrency };
    const held = peerSlots[system] ?? hangingCount * 4;
    const deadline = Date.now() + 30_000;
    let last = -1;
    for (;;) {
      const { hanging } = await rig.counters();
      if ((hanging >= held && hanging === last) || Date.now() > deadline) break;
      last = hanging;
      await sleep(500);
    }
    const hangingBefore = (await rig.counters()).hanging;
    const beside = await measure(
      fastIds.slice(1 + paced, 1 + 2 * paced),
      isTeamBuild(system) ? SETTINGS.s6nW0WaitSeconds * 1000 : 120_000,
    );
    const hangingAfter = (await rig.counters()).hanging;
    say(
      `${label} beside ${hangingCount} hanging receivers (${queuedIds.length * RECEIVERS_PER_BRAND} deliveries queued, ${hangingBefore} then ${hangingAfter} sockets held): ${beside.deliveries} of ${beside.expected} arrived within ${beside.waitedSeconds} s, p50 ${beside.p50 ?? 'over the wait'} ms, p99 ${beside.p99 ?? 'over the wait'} ms`,
    );
    for (const [name, phase] of Object.entries(isTeamBuild(system) ? { alone } : { alone, beside }))
      if (phase.deliveries < phase.expected)
        ctx.invalid.push(
          `${label} ${name}: ${phase.deliveries} of ${phase.expected} deliveries arrived`,
        );
    const mustHold = Math.min(hangingCount, held);
    if (hangingBefore < mustHold || hangingAfter < mustHold)
      ctx.invalid.push(
        `${label}: the hanging receivers held ${hangingBefore} then ${hangingAfter} sockets (fewer than ${mustHold})`,
      );
    await rig.checkSignatures(ctx.invalid, label);
    return {
      system,
      hangingReceivers: hangingCount,
      queued: queuedIds.length * RECEIVERS_PER_BRAND,
      rate: SETTINGS.neighbourRate,
      alone,
      beside,
      hangingHeld: [hangingBefore, hangingAfter],
    };
  } finally {
    await rig.stop();
  }
}
