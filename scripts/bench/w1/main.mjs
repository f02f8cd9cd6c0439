#!/usr/bin/env node
// W1, the webhook sender a team would build on BullMQ instead of the webhooks service (issue
// 64): the second peer S6, S6f and S6n measure ours against, in the same rounds as W0. One
// process, as small as a team would write it from the documentation of kafkajs and BullMQ:
//   - a kafkajs consumer of the business-events topic (eachMessage, the library's defaults;
//     offsets committed by kafkajs after each message is handled), which decodes the
//     BusinessEvent, looks up the subscriptions of its brand and type in the team's PostgreSQL
//     (w1.subscriptions, the same table W0 keeps), and adds one `deliver_webhook` job per
//     subscription with Queue.addBulk (one round trip an event); the job carries the delivery
//     body as text, so every attempt signs the same bytes;
//   - a BullMQ Worker on the same queue (Redis with AOF on, everysec, noeviction, as BullMQ's
//     "Going to production" asks; a redis-server of the bench's own: lib/peerRedis.mjs) whose
//     processor reads the subscription's URL and secret, signs and POSTs with undici
//     (peers/signedPost.mjs) and throws on a failed attempt, so that BullMQ retries it on the
//     contract's schedule (attempts 10, a custom backoff: 5 s, 5 min, 30 min, ... 24 h,
//     jittered +-10 %; the attempt is the X-Service-Attempt header).
// Settings (BENCHMARKS.md "W1"): concurrency 50, the figure of BullMQ's concurrency guide (its
// default is 1); completed jobs removed at once and the last 5,000 failed ones kept (its
// auto-removal guide); BullMQ's other settings its defaults (lock 30 s, stalled check every
// 30 s). What it does not do that ours does: the list of W0's (BENCHMARKS.md "W0"), the same.
// Env: DATABASE_URL, KAFKA_BROKERS, BUSINESS_EVENTS_TOPIC, KAFKA_CONSUMER_GROUP, W1_REDIS_URL
// (the queue's Redis), W1_CONCURRENCY (50). Logs {"msg":"listening","port":0} once consuming
// and working (the bench's readiness line); SIGTERM stops it.
import { Kafka, logLevel } from 'kafkajs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Queue, Worker } from 'bullmq';
import { readDelivery, subscriptionsDdl } from '../peers/deliveryBody.mjs';
import { MAX_ATTEMPTS, retryDelayMs } from '../peers/signedPost.mjs';
import { QUEUE, TASK, deliverWebhook } from './deliverWebhook.mjs';

const env = (name, fallback) => process.env[name] || fallback;
const concurrency = Number(env('W1_CONCURRENCY', 50));

// pg's Pool: the consumer's lookup an event and the processor's a job, at most one a job slot
const pgPool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: concurrency + 1 });
pgPool.on('error', (err) => console.error(`PostgreSQL pool: ${err.message}`));
await pgPool.query(subscriptionsDdl('w1'));

// BullMQ's connection rules: a Worker's connection must retry forever (maxRetriesPerRequest
// null); the Queue gets a connection of its own
const redisUrl = env('W1_REDIS_URL');
const queue = new Queue(QUEUE, { connection: new Redis(redisUrl) });
const worker = new Worker(QUEUE, (job) => deliverWebhook(job, pgPool), {
  connection: new Redis(redisUrl, { maxRetriesPerRequest: null }),
  concurrency,
  removeOnComplete: { count: 0 },
  removeOnFail: { count: 5_000 },
  // the contract's schedule: the delay after attempt n (attemptsMade) failed
  settings: { backoffStrategy: (attemptsMade) => retryDelayMs(attemptsMade) },
});
worker.on('error', (err) => console.error(`worker: ${err.message}`));
worker.on('failed', (job, err) => {
  if (job && job.attemptsMade >= MAX_ATTEMPTS)
    console.error(`subscription ${job.data.subscription_id}: giving up (${err.message})`);
});
await worker.waitUntilReady();

const kafka = new Kafka({
  clientId: 'w1',
  brokers: env('KAFKA_BROKERS', '127.0.0.1:9092').split(','),
  logLevel: logLevel.WARN,
});
const consumer = kafka.consumer({ groupId: env('KAFKA_CONSUMER_GROUP', 'w1') });
await consumer.connect();
await consumer.subscribe({ topic: env('BUSINESS_EVENTS_TOPIC'), fromBeginning: true });
await consumer.run({
  eachMessage: async ({ message }) => {
    const delivery = readDelivery(message);
    if (!delivery) return;
    const { type } = delivery;
    const { rows } = await pgPool.query(
      'select id from w1.subscriptions where brand_id = $1 and $2 = any(events)',
      [delivery.brandId, type],
    );
    if (rows.length === 0) return;
    const body = delivery.body();
    await queue.addBulk(
      rows.map((s) => ({
        name: TASK,
        data: { subscription_id: s.id, type, body },
        opts: { attempts: MAX_ATTEMPTS, backoff: { type: 'custom' } },
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
      await worker.close().catch(() => undefined);
      await queue.close().catch(() => undefined);
      await pgPool.end().catch(() => undefined);
      process.exit(0);
    })();
  });
