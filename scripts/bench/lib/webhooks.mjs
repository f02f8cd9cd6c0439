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
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Kafka, logLevel } from 'kafkajs';
import { cpuOfBackendsOpen, cpuOfPid } from './arms.mjs';
import { onCleanup } from './cleanup.mjs';
import { percentile } from './load.mjs';
import { pipelineStages, stagesText } from './webhookStages.mjs';
import { createEnterpriseBrands, insertSubmissions } from './seed.mjs';
import {
  ADMIN_TOKEN,
  INTERNAL_TOKEN,
  MAINS,
  RECORDS_HEAP_FLAGS,
  REPO_ROOT,
  SETTINGS,
  round,
  say,
} from './settings.mjs';
import { BROKERS } from './kafka.mjs';
import { logTail } from './processes.mjs';
import { recordsEnv, spawnHelper, spawnMeasured } from './stack.mjs';

const require = createRequire(import.meta.url);
const grpc = require('@grpc/grpc-js');
const { RecordsServiceClient } = require('@brand/proto/records/v1');
const { WebhooksServiceClient } = require('@brand/proto/webhooks/v1');
const { EventType } = require('@brand/proto/events/v1');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function unary(client, method, request) {
  const metadata = new grpc.Metadata();
  metadata.set('x-internal-token', ADMIN_TOKEN);
  return new Promise((resolve, reject) =>
    client[method](request, metadata, { deadline: Date.now() + 30_000 }, (err, res) =>
      err ? reject(new Error(`${method}: ${err.details || err.message}`)) : resolve(res),
    ),
  );
}

/** A topic of this run on the shared broker, deleted at the end. */
async function createRunTopic() {
  const topic = `brand.business-events.v1.bench.${randomBytes(4).toString('hex')}`;
  const kafka = new Kafka({
    clientId: 'bench-admin',
    brokers: BROKERS,
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
  } catch (err) {
    await admin.disconnect();
    throw new Error(
      `Kafka at ${BROKERS.join(',')} did not create a topic (${err.message}); scripts/kafka.sh status`,
    );
  }
  onCleanup(`delete Kafka topic ${topic}`, async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });
  return topic;
}

/** A throwaway CA and localhost certificate (the script `npm run up` and the tests use). */
function createCa() {
  const dir = mkdtempSync(path.join(tmpdir(), 'brand-bench-ca-'));
  onCleanup(`remove ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  const r = spawnSync('bash', [path.join(REPO_ROOT, 'scripts/lib/testCa.sh'), dir], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (r.status !== 0) throw new Error(`testCa.sh failed: ${r.stderr}`);
  return {
    caFile: path.join(dir, 'ca.pem'),
    keyFile: path.join(dir, 'localhost-key.pem'),
    certFile: path.join(dir, 'localhost.pem'),
  };
}

/** Ids of a brand's pending submissions, oldest first. */
async function pendingSubmissions(dbUrl, brandId) {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const r = await client.query(
      `select id from records.submissions where brand_id = $1 and status = 'pending'
       order by created_at, id`,
      [brandId],
    );
    return r.rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}

/** Approves each id (16 at a time); returns the event ids. */
async function approveAll(records, ids, concurrency = 16) {
  const events = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ids.length) {
        const id = ids[next++];
        events.push((await unary(records, 'approveSubmission', { submission_id: id })).event_id);
      }
    }),
  );
  return events;
}

/** Approves `rate` ids a second (in 10 ms ticks), never waiting for one to finish. */
async function approvePaced(records, ids, rate) {
  const started = Date.now();
  const pending = [];
  for (let i = 0; i < ids.length; i++) {
    const due = started + (i * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    pending.push(unary(records, 'approveSubmission', { submission_id: ids[i] }));
  }
  const results = await Promise.all(pending);
  return { events: results.map((r) => r.event_id), seconds: (Date.now() - started) / 1000 };
}

/** Every delivery the receivers have logged, fetched a new part at a time. */
function deliveryLog(controlUrl) {
  const all = [];
  return async () => {
    const added = await (await fetch(`${controlUrl}/deliveries?from=${all.length}`)).json();
    for (const d of added) all.push(d);
    return all;
  };
}

/**
 * Waits until every event has reached every receiver (or the deadline); returns them. Fails
 * at once when one of `pipeline` (the processes the deliveries need) has exited, rather than
 * waiting out the deadline for deliveries that cannot come. `log`: deliveryLog's reader.
 */
async function awaitDeliveries(log, eventIds, receivers, timeoutMs, pipeline) {
  const wanted = new Set(eventIds);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const exited = pipeline.find((p) => !p.alive);
    if (exited)
      throw new Error(
        `S6: ${exited.name} exited during the run; log tail:\n${logTail(exited.logFile)}`,
      );
    const all = await log();
    const mine = all.filter((d) => wanted.has(d[1]));
    const pairs = new Set(mine.map((d) => `${d[1]}/${d[3]}`));
    if (pairs.size >= wanted.size * receivers || Date.now() > deadline)
      return { deliveries: mine, pairs: pairs.size, expected: wanted.size * receivers };
    await sleep(250);
  }
}

export async function runWebhooksScenario(ctx) {
  const receiversCount = SETTINGS.webhookReceivers;
  const burstChanges = SETTINGS.webhookBurstChanges;
  const pacedRate = SETTINGS.smoke ? 10 : SETTINGS.webhookPacedRate;
  const pacedChanges = pacedRate * SETTINGS.webhookPacedSeconds;
  const topic = await createRunTopic();
  const ca = createCa();
  const receivers = await spawnHelper(
    'receivers',
    path.join(REPO_ROOT, 'scripts/bench/webhookReceivers.mjs'),
    {},
    { args: [String(receiversCount), ca.keyFile, ca.certFile] },
  );
  const deliveries = deliveryLog(`http://127.0.0.1:${receivers.port}`);
  const eventsRecords = await spawnMeasured(
    'records-events',
    MAINS.records,
    recordsEnv(ctx, { KAFKA_BROKERS: BROKERS.join(','), BUSINESS_EVENTS_TOPIC: topic }),
    RECORDS_HEAP_FLAGS,
  );
  const webhooks = await spawnMeasured(
    'webhooks',
    MAINS.webhooks,
    {
      GRPC_PORT: '0',
      GRPC_HOST: '127.0.0.1',
      METRICS_PORT: '0',
      DATABASE_URL: ctx.dbUrl,
      KAFKA_BROKERS: BROKERS.join(','),
      BUSINESS_EVENTS_TOPIC: topic,
      KAFKA_CONSUMER_GROUP: `brand-webhooks-bench-${randomBytes(4).toString('hex')}`,
      INTERNAL_TOKEN,
      ADMIN_TOKEN,
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true',
      WEBHOOK_EXTRA_CA_FILE: ca.caFile,
      LOG_LEVEL: 'info',
    },
    [],
    { readyTimeoutMs: 40_000 },
  );
  const pipeline = [receivers, eventsRecords, webhooks];
  const recordsAddress = `127.0.0.1:${eventsRecords.port}`;
  const records = new RecordsServiceClient(recordsAddress, grpc.credentials.createInsecure());
  const hooks = new WebhooksServiceClient(
    `127.0.0.1:${webhooks.port}`,
    grpc.credentials.createInsecure(),
  );
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
      `S6: ${receiversCount} receivers, topic ${topic}; ${duplicates} duplicate deliveries (at-least-once)`,
    );
    return { burst: burstFigures, paced: pacedFigures, duplicates };
  } finally {
    records.close();
    hooks.close();
    await webhooks.stop();
    await eventsRecords.stop();
    await receivers.stop();
  }
}
