// S6f (issue 36, fan-out): one brand with 20 receivers, every business change a delivery to
// each (WEBHOOK_MAX_RECEIVERS_PER_BRAND raised to 20 for it), SETTINGS.fanOutChanges changes as
// fast as records takes them. Figures: deliveries a second out (sustained, as S6 measures it)
// and CPU per delivery of the webhooks process and its PostgreSQL backends, against the same
// per-delivery cost target as S6 (a wide fan-out must cost no more per delivery than S6's 10).
// Validity: every (event, receiver) pair arrives.
import { cpuOfBackendsOpen, cpuOfPid } from './arms.mjs';
import { createEnterpriseBrands, insertSubmissions } from './seed.mjs';
import { ADMIN_TOKEN, SETTINGS, round, say } from './settings.mjs';
import {
  approveAll,
  awaitDeliveries,
  deliveryLog,
  pendingSubmissions,
  startWebhookRig,
  unary,
} from './webhookRig.mjs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { EventType } = require('@brand/proto/events/v1');

const RECEIVERS = 20;

export async function runFanOutScenario(ctx) {
  const changes = SETTINGS.fanOutChanges;
  const rig = await startWebhookRig(ctx, {
    count: RECEIVERS,
    webhooksEnv: { WEBHOOK_MAX_RECEIVERS_PER_BRAND: String(RECEIVERS) },
  });
  const deliveries = deliveryLog(rig.control);
  try {
    const [brand] = await createEnterpriseBrands(rig.recordsAddress, ADMIN_TOKEN, 1, {
      namePrefix: 'Fan-out Brand',
    });
    for (const [i, port] of rig.receivers.listening.receivers.entries())
      await unary(rig.hooks, 'addReceiver', {
        brand_id: brand.brandId,
        url: `https://127.0.0.1:${port}/hooks/${i}`,
        label: `bench receiver ${i}`,
        events: [EventType.EVENT_TYPE_SUBMISSION_APPROVED],
        actor_email: 'owner@bench.test',
      });
    await insertSubmissions(ctx.dbUrl, [brand.brandId], changes + 1, { status: 'pending' });
    const ids = await pendingSubmissions(ctx.dbUrl, brand.brandId);
    const [warm] = await approveAll(rig.records, ids.slice(0, 1), 1);
    await awaitDeliveries(deliveries, [warm], RECEIVERS, 60_000, rig.pipeline);

    const cpu = {
      webhooks: cpuOfPid(rig.webhooks.pid),
      'postgres (webhooks)': cpuOfBackendsOpen(ctx.dbName, ['webhooks']),
    };
    const readCpu = async () =>
      Object.fromEntries(
        await Promise.all(Object.entries(cpu).map(async ([k, f]) => [k, await f()])),
      );
    const before = await readCpu();
    const started = Date.now();
    const events = await approveAll(rig.records, ids.slice(1, 1 + changes));
    const done = await awaitDeliveries(deliveries, events, RECEIVERS, 300_000, rig.pipeline);
    const after = await readCpu();
    const cpuMsPerDelivery = Object.fromEntries(
      Object.keys(cpu).map((k) => [
        k,
        round(((after[k] - before[k]) * 1000) / Math.max(1, done.deliveries.length), 4),
      ]),
    );
    const times = done.deliveries.map((d) => d[0]).sort((a, b) => a - b);
    const t10 = times[Math.floor(times.length * 0.1)];
    const t90 = times[Math.floor(times.length * 0.9) - 1] ?? times.at(-1);
    const figures = {
      receivers: RECEIVERS,
      changes: events.length,
      deliveries: done.deliveries.length,
      deliveriesPerSecond: round((times.length * 0.8) / Math.max(0.001, (t90 - t10) / 1000), 1),
      seconds: round((times.at(-1) - started) / 1000, 2),
      cpuMsPerDelivery,
    };
    say(
      `S6f: ${figures.changes} changes to ${RECEIVERS} receivers, ${figures.deliveries} deliveries at ${figures.deliveriesPerSecond}/s sustained; CPU ms/delivery ${JSON.stringify(cpuMsPerDelivery)}`,
    );
    if (done.pairs < done.expected)
      ctx.invalid.push(`S6f: ${done.pairs} of ${done.expected} deliveries arrived within 300 s`);
    return figures;
  } finally {
    await rig.stop();
  }
}
