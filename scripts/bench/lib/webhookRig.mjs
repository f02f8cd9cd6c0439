// The rig of the webhook scenarios (S6, S6f, S6n, S6c): admin RPCs, a Kafka topic of the run, a
// throwaway CA, the receivers' delivery log, business changes through records (approvals),
// and the records (outbox relay) and sender processes of a scenario: the webhooks service
// (`ours`), W0, the sender a brand would build on graphile-worker (`W0`, w0/main.mjs, issue
// 46), or W1, the one it would build on BullMQ (`W1`, w1/main.mjs, with a redis-server of its
// own: peerRedis.mjs, issue 64). Either way the receivers verify every delivery's signature
// with its receiver's secret.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Kafka, logLevel } from 'kafkajs';
import { onCleanup } from './cleanup.mjs';
import { makeTestCa } from './testCa.mjs';
import { cpuOfBackendsFollowed, cpuOfPid } from './arms.mjs';
import {
  ADMIN_TOKEN,
  INTERNAL_TOKEN,
  MAINS,
  PEER,
  RECORDS_HEAP_FLAGS,
  REPO_ROOT,
  SETTINGS,
} from './settings.mjs';
import { BROKERS } from './kafka.mjs';
import { logTail } from './processes.mjs';
import { startPeerRedis } from './peerRedis.mjs';
import { recordsEnv, spawnHelper, spawnMeasured } from './stack.mjs';

const require = createRequire(import.meta.url);
const grpc = require('@grpc/grpc-js');
const { RecordsServiceClient } = require('@brand/proto/records/v1');
const { WebhooksServiceClient } = require('@brand/proto/webhooks/v1');
const { EventType, eventTypeToJSON } = require('@brand/proto/events/v1');
const { createTopicWithLeaders } = require('@brand/shared/kafka');

/**
 * The peers ours is compared with: W0 and W1 (issue 64: every target is a ratio to the better
 * of the two in each round), or B alone (an A/B of two builds of ours).
 */
export const PEERS = PEER === 'B' ? ['B'] : SETTINGS.peers;
/** The senders the webhook scenarios compare, in the order the first round runs them. */
export const SYSTEMS = ['ours', ...PEERS];
/** The senders that are a team's own build (W0, W1): no lanes, no admin RPCs, no stages. */
export const isTeamBuild = (system) => system === 'W0' || system === 'W1';

/** The PostgreSQL application_name of each sender's backends (their CPU is its figure). */
const SENDER_BACKENDS = {
  ours: ['webhooks'],
  W0: ['bench-w0'],
  W1: ['bench-w1'],
  B: ['webhooks'],
};

/**
 * How long a rig's process may take to log "listening": records took over 20 s (spawnService's
 * default) at load 41, and the run ended there.
 */
const READY_TIMEOUT_MS = 90_000;

/** W0's graphile-worker schema: one per rig, so no job of an earlier rig runs in a later one. */
let w0Rigs = 0;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls refused as UNAVAILABLE and tried again (see unary); the scenarios report them. */
export const refusedAndRetried = { count: 0 };

/**
 * One admin RPC. A call refused as UNAVAILABLE ("a data store is temporarily unavailable;
 * retry shortly": the records service's pool full on a machine at load 6) is tried again after
 * a pause, up to ten times (about 11 s in all: at load 17, five were not enough), as the service
 * asks of its clients; before, one such refusal ended the whole run. A change's commit time is
 * what S6 measures from, so a refused try before it does not count in its latency.
 */
export async function unary(client, method, request) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await unaryOnce(client, method, request);
    } catch (err) {
      if (err.code !== grpc.status.UNAVAILABLE || attempt >= 10) throw err;
      refusedAndRetried.count++;
      await sleep(200 * attempt);
    }
  }
}

function unaryOnce(client, method, request) {
  const metadata = new grpc.Metadata();
  metadata.set('x-internal-token', ADMIN_TOKEN);
  return new Promise((resolve, reject) =>
    client[method](request, metadata, { deadline: Date.now() + 30_000 }, (err, res) =>
      err
        ? reject(
            Object.assign(new Error(`${method}: ${err.details || err.message}`), {
              code: err.code,
            }),
          )
        : resolve(res),
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
    await createTopicWithLeaders(admin, { topic, numPartitions: 3 });
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

/** A throwaway CA and localhost certificate (lib/testCa.mjs), removed at the run's cleanup. */
function createCa() {
  const dir = mkdtempSync(path.join(tmpdir(), 'brand-bench-ca-'));
  onCleanup(`remove ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  return makeTestCa(dir);
}

/** Ids of a brand's pending submissions, oldest first. */
export async function pendingSubmissions(dbUrl, brandId) {
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
export async function approveAll(records, ids, concurrency = 16) {
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

/**
 * Approves `rate` ids a second, never waiting for one to finish, with at most `inFlight`
 * approvals outstanding: on a machine that cannot take the rate (records answering 10 a second
 * at load 20), an open loop piled up hundreds of calls until records' pool refused them and the
 * run failed; now the pacing slips instead (`seconds` says by how much: the achieved rate is
 * reported beside each level). A call still refused after unary's tries is counted and left
 * out (`refused`), not fatal. The latency S6 measures starts at each change's commit, so time
 * spent waiting to be sent is not in it.
 */
export async function approvePaced(records, ids, rate, inFlight = 64) {
  const started = Date.now();
  const pending = new Set();
  const events = [];
  /** event id -> when records answered its change (ms): the change committed before it */
  const answered = new Map();
  let refused = 0;
  for (let i = 0; i < ids.length; i++) {
    const due = started + (i * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    while (pending.size >= inFlight) await Promise.race(pending);
    const call = unary(records, 'approveSubmission', { submission_id: ids[i] })
      .then((r) => {
        events.push(r.event_id);
        answered.set(r.event_id, Date.now());
      })
      .catch((err) => {
        if (err.code !== grpc.status.UNAVAILABLE) throw err;
        refused++;
      })
      .finally(() => pending.delete(call));
    pending.add(call);
  }
  await Promise.all(pending);
  return { events, answered, refused, seconds: (Date.now() - started) / 1000 };
}

/** Every delivery the receivers have logged, fetched a new part at a time. */
export function deliveryLog(controlUrl) {
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
export async function awaitDeliveries(log, eventIds, receivers, timeoutMs, pipeline) {
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

/**
 * The processes of a webhook scenario: the receivers (webhookReceivers.mjs, `count` HTTPS
 * servers), a records process whose outbox relay publishes to a topic of the run, and the
 * webhooks service (all roles, production delivery settings unless `webhooksEnv` says
 * otherwise), with gRPC clients of both. `stop()` ends them.
 */
export async function startWebhookRig(
  ctx,
  { count, webhooksEnv = {}, system = 'ours', adminApart = false },
) {
  const topic = await createRunTopic();
  const ca = createCa();
  const receivers = await spawnHelper(
    'receivers',
    path.join(REPO_ROOT, 'scripts/bench/webhookReceivers.mjs'),
    {},
    { args: [String(count), ca.keyFile, ca.certFile], readyTimeoutMs: READY_TIMEOUT_MS },
  );
  const control = `http://127.0.0.1:${receivers.port}`;
  const eventsRecords = await spawnMeasured(
    'records-events',
    MAINS.records,
    recordsEnv(ctx, { KAFKA_BROKERS: BROKERS.join(','), BUSINESS_EVENTS_TOPIC: topic }),
    RECORDS_HEAP_FLAGS,
    { readyTimeoutMs: READY_TIMEOUT_MS },
  );
  const group = `brand-webhooks-bench-${randomBytes(4).toString('hex')}`;
  // W1's queue: a redis-server of its own for the rig (AOF on), counted as W1's store
  const queueRedis = system === 'W1' ? await startPeerRedis('w1-redis') : undefined;
  const peerEnv = {
    KAFKA_BROKERS: BROKERS.join(','),
    BUSINESS_EVENTS_TOPIC: topic,
    KAFKA_CONSUMER_GROUP: group,
    // the receivers' certificates come from the run's throwaway CA
    NODE_EXTRA_CA_CERTS: ca.caFile,
  };
  const sender =
    system === 'W0'
      ? await spawnMeasured(
          'w0',
          MAINS.w0,
          {
            ...peerEnv,
            DATABASE_URL: withApplicationName(ctx.dbUrl, SENDER_BACKENDS.W0[0]),
            W0_JOBS_SCHEMA: `w0_jobs_${++w0Rigs}`,
            W0_CONCURRENCY: String(SETTINGS.w0Concurrency),
            W0_MAX_POOL_SIZE: String(SETTINGS.w0Concurrency + 1),
          },
          [],
          { readyTimeoutMs: READY_TIMEOUT_MS },
        )
      : system === 'W1'
        ? await spawnMeasured(
            'w1',
            MAINS.w1,
            {
              ...peerEnv,
              DATABASE_URL: withApplicationName(ctx.dbUrl, SENDER_BACKENDS.W1[0]),
              W1_REDIS_URL: queueRedis.url,
              W1_CONCURRENCY: String(SETTINGS.w1Concurrency),
            },
            [],
            { readyTimeoutMs: READY_TIMEOUT_MS },
          )
        : await spawnOurs(system === 'B' ? 'webhooks-b' : 'webhooks', {
            main: system === 'B' ? (SETTINGS.peerWebhooksMain ?? MAINS.webhooks) : MAINS.webhooks,
            env: {
              GRPC_PORT: '0',
              GRPC_HOST: '127.0.0.1',
              METRICS_PORT: '0',
              DATABASE_URL: ctx.dbUrl,
              KAFKA_BROKERS: BROKERS.join(','),
              BUSINESS_EVENTS_TOPIC: topic,
              KAFKA_CONSUMER_GROUP: group,
              INTERNAL_TOKEN,
              ADMIN_TOKEN,
              WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
              WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true',
              WEBHOOK_EXTRA_CA_FILE: ca.caFile,
              LOG_LEVEL: 'info',
              ...webhooksEnv,
              ...(system === 'B' ? SETTINGS.peerWebhooksEnv : {}),
            },
            flags:
              system === 'B'
                ? (SETTINGS.peerWebhooksFlags ?? SETTINGS.webhooksFlags)
                : SETTINGS.webhooksFlags,
            adminApart,
          });
  // ours with its admin role apart (the Helm chart's shape): the receivers are added through it
  const admin = sender.admin;
  const recordsAddress = `127.0.0.1:${eventsRecords.port}`;
  const records = new RecordsServiceClient(recordsAddress, grpc.credentials.createInsecure());
  const hooks = isTeamBuild(system)
    ? undefined
    : new WebhooksServiceClient(
        `127.0.0.1:${(admin ?? sender).port}`,
        grpc.credentials.createInsecure(),
      );
  const receiverPorts = receivers.listening.receivers;
  const followed = [];
  const follow = (names) => {
    const f = cpuOfBackendsFollowed(ctx.dbName, names);
    followed.push(f);
    return f.read;
  };
  return {
    system,
    topic,
    ca,
    receivers,
    /** The receivers' control listener (deliveries log, modes). */
    control,
    eventsRecords,
    recordsAddress,
    records,
    /** The sender: the webhooks service (ours), W0's or W1's process. */
    sender,
    /** ours only: the webhooks service's process and its gRPC client. */
    webhooks: isTeamBuild(system) ? undefined : sender,
    hooks,
    /** ours with `adminApart`: the process of the admin role (the sender has the others). */
    admin,
    /** The processes deliveries need (awaitDeliveries fails at once when one exits). */
    pipeline: [
      receivers,
      eventsRecords,
      sender,
      ...(admin ? [admin] : []),
      ...(queueRedis ? [queueRedis.process] : []),
    ],
    /**
     * Registers receiver `i` (its HTTPS server) for a brand's `events` with the sender (ours:
     * AddReceiver, the secret it shows once; W0, W1: a row of w0.subscriptions or
     * w1.subscriptions with a secret made here), and gives the receiver the secret to verify
     * with. Returns AddReceiver's answer (ours) or the subscription's id (W0, W1).
     */
    async addReceiver(brandId, i, events = [EventType.EVENT_TYPE_SUBMISSION_APPROVED]) {
      const url = `https://127.0.0.1:${receiverPorts[i]}/hooks/${i}`;
      let answer;
      let secret;
      if (isTeamBuild(system)) {
        secret = `whsec_${randomBytes(24).toString('base64url')}`;
        const names = events.map((e) =>
          eventTypeToJSON(e)
            .replace(/^EVENT_TYPE_/, '')
            .toLowerCase()
            .replace('_', '.'),
        );
        answer = await withClient(ctx.dbUrl, async (c) => {
          const r = await c.query(
            `insert into ${system.toLowerCase()}.subscriptions (brand_id, url, secret, events) values ($1, $2, $3, $4) returning id`,
            [brandId, url, secret, names],
          );
          return r.rows[0].id;
        });
      } else {
        answer = await unary(hooks, 'addReceiver', {
          brand_id: brandId,
          url,
          label: `bench receiver ${i}`,
          events,
          actor_email: 'owner@bench.test',
        });
        secret = answer.secret;
      }
      const res = await fetch(`${control}/secret?i=${i}`, { method: 'POST', body: secret });
      if (!res.ok) throw new Error(`receivers: secret of ${i}: ${res.status}`);
      return answer;
    },
    /**
     * CPU seconds so far of every process a delivery goes through, one reader each (async):
     * the sender and its stores (its PostgreSQL backends; W1's queue Redis too), records (whose
     * outbox relay is the producer) and its backends (followed through the phase:
     * cpuOfBackendsFollowed), and the receivers. The Kafka broker is not among them: it is the
     * machine's shared one, the same for every sender.
     */
    cpuReaders() {
      return {
        // with the admin role apart, its process counts as the sender's too
        sender: admin ? sumOf(cpuOfPid(sender.pid), cpuOfPid(admin.pid)) : cpuOfPid(sender.pid),
        'postgres (sender)': follow(SENDER_BACKENDS[system]),
        ...(queueRedis ? { 'redis (sender)': cpuOfPid(queueRedis.pid) } : {}),
        'records (relay)': cpuOfPid(eventsRecords.pid),
        'postgres (records)': follow(['records', 'records-outbox-relay']),
        receivers: cpuOfPid(receivers.pid),
      };
    },
    /**
     * Sets receivers [from, to) to answer `fast` (204), `slow` (204 after 2 s), `hang` (never)
     * or `fail` (500); with `every` k, only every k-th of them (index k - 1 modulo k).
     */
    async setMode(from, to, mode, every = 1) {
      const res = await fetch(`${control}/mode?from=${from}&to=${to}&mode=${mode}&every=${every}`, {
        method: 'POST',
      });
      if (!res.ok) throw new Error(`receivers: mode ${mode}: ${res.status}`);
    },
    /** Requests the receivers are holding open now (hang mode), failed answers, verifications. */
    async counters() {
      return (await fetch(`${control}/counters`)).json();
    },
    /**
     * Marks the run invalid when a receiver refused a delivery's signature or headers; returns
     * how many deliveries were verified.
     */
    async checkSignatures(invalid, label) {
      const c = await this.counters();
      if (c.rejected > 0)
        invalid.push(
          `${label} (${system}): receivers refused ${c.rejected} deliveries (${c.lastRejection})`,
        );
      return c.verified;
    },
    async stop() {
      for (const f of followed) f.stop();
      records.close();
      hooks?.close();
      await sender.stop();
      await admin?.stop();
      await queueRedis?.stop();
      await eventsRecords.stop();
      await receivers.stop();
    },
  };
}

/**
 * Our webhooks service as one process with every role, or (`adminApart`, as the Helm chart
 * deploys it) the consumer and the worker in process `name` and the admin role in
 * `name`-admin, returned as the sender's `admin`: the receivers a run adds then go through a
 * process of their own, and the one that delivers holds only what delivering needs.
 */
async function spawnOurs(name, { main, env, flags, adminApart }) {
  const start = (processName, roles) =>
    spawnMeasured(
      processName,
      main,
      { ...env, ...(roles ? { WEBHOOKS_ROLES: roles } : {}) },
      flags,
      { readyTimeoutMs: READY_TIMEOUT_MS },
    );
  if (!adminApart) return start(name);
  const admin = await start(`${name}-admin`, 'admin');
  const sender = await start(name, 'consumer,worker');
  sender.admin = admin;
  return sender;
}

/** A CPU reader summing two. */
const sumOf = (a, b) => () => a() + b();

/** The database URL with this application_name (the sender's backends are found by it). */
function withApplicationName(dbUrl, name) {
  const url = new URL(dbUrl);
  url.searchParams.set('application_name', name);
  return url.toString();
}

async function withClient(dbUrl, fn) {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * What autovacuum would have done between two rounds (it is off on these machines' PostgreSQL,
 * on in any production one): VACUUM (ANALYZE) of the run's database, before each sender's
 * round, so neither sender inherits the other's dead rows or stale statistics.
 */
export async function vacuumBetweenRounds(dbUrl) {
  await withClient(dbUrl, (c) => c.query('vacuum (analyze)'));
}
