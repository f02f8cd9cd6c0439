// S6c (issue 34, catch-up): one receiver down (answering 500) while SETTINGS.catchUpDeliveries
// business changes happen; every delivery fails twice and waits for its next retry (5 minutes
// away on the production schedule, a minute in a smoke run: SETTINGS.catchUpRetryScale). Then the receiver is back, and the time until the whole
// backlog has arrived is measured twice:
//   - recover: from the RecoverDeliveries call (since the outage began) to the last delivery;
//   - by itself: a second outage like the first; from the receiver's first 2xx (a Test) to the
//     last delivery, with no other action.
// Validity: every event arrives, and exactly once.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createEnterpriseBrands, insertSubmissions } from './seed.mjs';
import { ADMIN_TOKEN, SETTINGS, round, say } from './settings.mjs';
import {
  approveAll,
  awaitDeliveries,
  deliveryLog,
  pendingSubmissions,
  sleep,
  startWebhookRig,
  unary,
} from './webhookRig.mjs';

/**
 * Waits until `n` of the receiver's deliveries wait for a retry after two failed attempts (the
 * next one at least a minute away on the production schedule, as much less as it is scaled).
 */
async function awaitWaiting(dbUrl, receiverId, n, timeoutMs) {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await client.query(
        `select count(*)::int as n from webhooks.deliveries
         where receiver_id = $1 and status = 'pending' and not test and attempts >= 2
           and next_attempt_at > now() + $2::float8 * interval '1 minute'`,
        [receiverId, Number(SETTINGS.catchUpRetryScale)],
      );
      if (rows[0].n >= n || Date.now() > deadline) return rows[0].n;
      await sleep(250);
    }
  } finally {
    await client.end();
  }
}

export async function runCatchUpScenario(ctx) {
  const n = SETTINGS.catchUpDeliveries;
  const rig = await startWebhookRig(ctx, {
    count: 1,
    webhooksEnv: { RETRY_TIME_SCALE: SETTINGS.catchUpRetryScale },
  });
  const deliveries = deliveryLog(rig.control);
  try {
    const [brand] = await createEnterpriseBrands(rig.recordsAddress, ADMIN_TOKEN, 1, {
      namePrefix: 'Catch-up Brand',
    });
    const { receiver } = await rig.addReceiver(brand.brandId, 0);
    await insertSubmissions(ctx.dbUrl, [brand.brandId], 2 * n + 1, { status: 'pending' });
    const ids = await pendingSubmissions(ctx.dbUrl, brand.brandId);
    const [warm] = await approveAll(rig.records, ids.slice(0, 1), 1);
    await awaitDeliveries(deliveries, [warm], 1, 60_000, rig.pipeline);

    /** An outage of the receiver while `slice` changes happen; returns their event ids. */
    const outage = async (slice) => {
      await rig.setMode(0, 1, 'fail');
      const events = await approveAll(rig.records, slice);
      const waiting = await awaitWaiting(ctx.dbUrl, receiver.id, slice.length, 180_000);
      if (waiting < slice.length)
        ctx.invalid.push(`S6c: only ${waiting} of ${slice.length} deliveries were waiting`);
      await rig.setMode(0, 1, 'fast');
      return events;
    };
    /** Time from `t0` until every event arrived, and how many arrived more than once. */
    const drained = async (events, t0) => {
      const done = await awaitDeliveries(deliveries, events, 1, 180_000, rig.pipeline);
      if (done.pairs < done.expected)
        ctx.invalid.push(`S6c: ${done.pairs} of ${done.expected} deliveries arrived within 180 s`);
      const last = Math.max(...done.deliveries.map((d) => d[0]));
      return {
        deliveries: done.pairs,
        duplicates: done.deliveries.length - done.pairs,
        seconds: round((last - t0) / 1000, 2),
      };
    };

    // 1. recover: one action for the whole backlog
    const since = new Date().toISOString();
    const first = await outage(ids.slice(1, 1 + n));
    const recoverAt = Date.now();
    const recovered = await unary(rig.hooks, 'recoverDeliveries', {
      receiver_id: receiver.id,
      since,
      request_id: randomUUID(),
      actor_email: 'bench@brand.test',
    });
    const recover = { ...(await drained(first, recoverAt)), requeued: recovered.requeued };
    say(
      `S6c recover: ${recover.deliveries} waiting deliveries arrived ${recover.seconds} s after one recover`,
    );

    // 2. by itself: the receiver's first 2xx (a Test) drains the backlog
    const second = await outage(ids.slice(1 + n, 1 + 2 * n));
    const seen = (await deliveries()).length;
    await unary(rig.hooks, 'testReceiver', {
      receiver_id: receiver.id,
      event_type: 0,
      with_new_secret: false,
    });
    const deadline = Date.now() + 60_000;
    let firstOk;
    while (!firstOk && Date.now() < deadline) {
      firstOk = (await deliveries()).slice(seen).find((d) => d[4] === true);
      if (!firstOk) await sleep(50);
    }
    if (!firstOk) ctx.invalid.push('S6c: the Test delivery did not arrive within 60 s');
    const byItself = await drained(second, firstOk ? firstOk[0] : Date.now());
    say(
      `S6c by itself: ${byItself.deliveries} waiting deliveries arrived ${byItself.seconds} s after the receiver's first 2xx`,
    );
    for (const [name, phase] of Object.entries({ recover, byItself }))
      if (phase.duplicates > 0)
        ctx.notes.push(`S6c ${name}: ${phase.duplicates} deliveries arrived twice`);
    await rig.checkSignatures(ctx.invalid, 'S6c');
    return { deliveries: n, recover, byItself };
  } finally {
    await rig.stop();
  }
}
