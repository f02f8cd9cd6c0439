#!/usr/bin/env node
// W0, the webhook sender a brand would build instead of the webhooks service (issue 46): the
// peer S6, S6f and S6n measure ours against, in the same rounds. One process, as small as a
// team would write it in a week from the documentation of kafkajs and graphile-worker:
//   - a kafkajs consumer of the business-events topic (eachMessage, the library's defaults;
//     offsets committed by kafkajs after each message is handled), which decodes the
//     BusinessEvent, looks up the subscriptions of its brand and type, and enqueues one
//     `deliver_webhook` job per subscription with graphile-worker's addJobs (one statement);
//     the job carries the delivery body as text, so every attempt signs the same bytes;
//   - a graphile-worker runner (PostgreSQL, durable: a job is a row until it succeeded) with
//     the task of deliverWebhook.mjs: sign, POST with undici, retry on the contract's schedule.
// Settings (BENCHMARKS.md "W0"): concurrency 24 and a pool of 25, graphile-worker's own
// performance page's figures (its default is 1, for CPU-bound tasks); everything else is
// graphile-worker's and kafkajs's default (poll interval 2 s for future jobs, new jobs by
// LISTEN/NOTIFY, no local queue or batched completion, its console logger), and the pool is
// pg's default but for its size. What it does not do that ours does: no per-receiver lanes
// (jobs run first come first served across receivers), no delivery or attempt log, no health,
// no catch-up, no Retry-After or 60 s overload floor, no 410, no URL pinning, no dedupe of a
// Kafka redelivery (receivers dedupe on the event id anyway), secrets kept as plain text.
// Env: DATABASE_URL, KAFKA_BROKERS, BUSINESS_EVENTS_TOPIC, KAFKA_CONSUMER_GROUP,
// W0_JOBS_SCHEMA (graphile-worker's schema; default graphile_worker), W0_CONCURRENCY (24),
// W0_MAX_POOL_SIZE (25). Logs {"msg":"listening","port":0} once consuming and running (the
// bench's readiness line); SIGTERM stops it.
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { makeWorkerUtils, run } from 'graphile-worker';
import { MAX_ATTEMPTS, TASK, deliverWebhook } from './deliverWebhook.mjs';
import { readDelivery, subscriptionsDdl } from '../peers/deliveryBody.mjs';

const env = (name, fallback) => process.env[name] || fallback;

const pgPool = new pg.Pool({
  connectionString: env('DATABASE_URL'),
  max: Number(env('W0_MAX_POOL_SIZE', 25)),
});
// graphile-worker asks for this: an idle client's error (a restarted server) must not crash it
pgPool.on('error', (err) => console.error(`PostgreSQL pool: ${err.message}`));
const schema = env('W0_JOBS_SCHEMA', 'graphile_worker');

// the subscriptions (a brand's receivers), W0's only table of its own
await pgPool.query(subscriptionsDdl('w0'));

const runner = await run({
  pgPool,
  schema,
  concurrency: Number(env('W0_CONCURRENCY', 24)),
  noHandleSignals: true,
  taskList: { [TASK]: deliverWebhook },
});
const workerUtils = await makeWorkerUtils({ pgPool, schema });

const kafka = new Kafka({
  clientId: 'w0',
  brokers: env('KAFKA_BROKERS', '127.0.0.1:9092').split(','),
  logLevel: logLevel.WARN,
});
const consumer = kafka.consumer({ groupId: env('KAFKA_CONSUMER_GROUP', 'w0') });
await consumer.connect();
await consumer.subscribe({ topic: env('BUSINESS_EVENTS_TOPIC'), fromBeginning: true });
await consumer.run({
  eachMessage: async ({ message }) => {
    const delivery = readDelivery(message);
    if (!delivery) return;
    const { type } = delivery;
    const { rows } = await pgPool.query(
      'select id from w0.subscriptions where brand_id = $1 and $2 = any(events)',
      [delivery.brandId, type],
    );
    if (rows.length === 0) return;
    const body = delivery.body();
    await workerUtils.addJobs(
      rows.map((s) => ({
        identifier: TASK,
        payload: { subscription_id: s.id, type, body, attempt: 1 },
        maxAttempts: MAX_ATTEMPTS,
      })),
    );
  },
});
console.log(JSON.stringify({ msg: 'listening', port: 0 }));

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'])
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(0), 3_000).unref();
    void (async () => {
      await consumer.disconnect().catch(() => undefined);
      await runner.stop().catch(() => undefined);
      await workerUtils.release().catch(() => undefined);
      await pgPool.end().catch(() => undefined);
      process.exit(0);
    })();
  });
