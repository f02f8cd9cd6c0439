// S6f (issue 36, fan-out): one brand with 20 receivers, every business change a delivery to
// each (WEBHOOK_MAX_RECEIVERS_PER_BRAND raised to 20 for ours), SETTINGS.fanOutChanges changes
// as fast as records takes them, through ours or W0 (issue 46: the comparison interleaves
// them). Figures: deliveries a second out (sustained, as S6 measures it) and CPU per delivery
// of every process on the way (the rig's cpuReaders), the sender and its PostgreSQL backends
// against the same per-delivery targets as S6 (a wide fan-out must cost no more per delivery
// than S6's 10). Validity: every (event, receiver) pair arrives, every signature verifies.
import { createEnterpriseBrands, insertSubmissions } from './seed.mjs';
import { ADMIN_TOKEN, SETTINGS, round, say } from './settings.mjs';
import { readCpu, sustainedRate } from './webhooks.mjs';
import {
  approveAll,
  awaitDeliveries,
  deliveryLog,
  pendingSubmissions,
  startWebhookRig,
} from './webhookRig.mjs';

const RECEIVERS = 20;

export async function runFanOutScenario(ctx, { system = 'ours' } = {}) {
  const changes = SETTINGS.fanOutChanges;
  const label = `S6f ${system}`;
  const rig = await startWebhookRig(ctx, {
    count: RECEIVERS,
    system,
    webhooksEnv: { WEBHOOK_MAX_RECEIVERS_PER_BRAND: String(RECEIVERS) },
  });
  const deliveries = deliveryLog(rig.control);
  try {
    const [brand] = await createEnterpriseBrands(rig.recordsAddress, ADMIN_TOKEN, 1, {
      namePrefix: 'Fan-out Brand',
    });
    for (let i = 0; i < RECEIVERS; i++) await rig.addReceiver(brand.brandId, i);
    await insertSubmissions(ctx.dbUrl, [brand.brandId], changes + 1, { status: 'pending' });
    const ids = await pendingSubmissions(ctx.dbUrl, brand.brandId);
    const [warm] = await approveAll(rig.records, ids.slice(0, 1), 1);
    await awaitDeliveries(deliveries, [warm], RECEIVERS, 60_000, rig.pipeline);

    const cpu = rig.cpuReaders();
    const before = await readCpu(cpu);
    const started = Date.now();
    const events = await approveAll(rig.records, ids.slice(1, 1 + changes));
    const done = await awaitDeliveries(deliveries, events, RECEIVERS, 300_000, rig.pipeline);
    const after = await readCpu(cpu);
    const cpuMsPerDelivery = Object.fromEntries(
      Object.keys(cpu).map((k) => [
        k,
        round(((after[k] - before[k]) * 1000) / Math.max(1, done.deliveries.length), 4),
      ]),
    );
    const { times, perSecond } = sustainedRate(done.deliveries);
    const figures = {
      system,
      receivers: RECEIVERS,
      changes: events.length,
      deliveries: done.deliveries.length,
      deliveriesPerSecond: round(perSecond, 1),
      seconds: round((times.at(-1) - started) / 1000, 2),
      cpuMsPerDelivery,
    };
    say(
      `${label}: ${figures.changes} changes to ${RECEIVERS} receivers, ${figures.deliveries} deliveries at ${figures.deliveriesPerSecond}/s sustained; CPU ms/delivery ${JSON.stringify(cpuMsPerDelivery)}`,
    );
    if (done.pairs < done.expected)
      ctx.invalid.push(
        `${label}: ${done.pairs} of ${done.expected} deliveries arrived within 300 s`,
      );
    figures.verified = await rig.checkSignatures(ctx.invalid, label);
    return figures;
  } finally {
    await rig.stop();
  }
}
