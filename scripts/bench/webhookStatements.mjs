#!/usr/bin/env node
// The webhooks pipeline's PostgreSQL statements alone (issue 36): the CPU the database spends
// on each step of a delivery, measured on the backend that runs it (/proc/<pid>/stat of
// pg_backend_pid(): the local PostgreSQL only), on built code (npm run build), in a scratch
// database that is dropped at the end. S6 measures the whole pipeline; on a shared, loaded
// machine its CPU per delivery moves by more than one statement's change, so this isolates
// the three statements a delivery costs the database:
//   node scripts/bench/webhookStatements.mjs        # ROUNDS=5 rounds, medians printed
//   RECEIVERS=10000 BATCH=2 node scripts/bench/webhookStatements.mjs  # S10's platform: 5
//     receivers a brand, claims and successes of two deliveries (issue 64: each statement
//     must keep one generic plan; with pg_stat_statements loaded, its `plans` column shows it)
// - ingest: a Kafka chunk of 20 events, 10 receivers each (insertEvents + insertDeliveries);
// - claim: a worker's scan for up to 12 due deliveries out of the backlog the ingest left, with
//   the week's statistics fresh as the history keeper leaves them;
// - claim by key: the same backlog claimed 12 at a time by primary key, as the feed from the
//   consumer to its own worker does (deliveryFeed.ts; each round ingests and drains twice, once
//   for each way of claiming);
// - success: 12 claimed deliveries recorded as 2xx in one statement (recordSucceededAttempts).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase, databaseUrl, dropDatabase, newDatabaseName } from './lib/infra.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(root, 'services/webhooks/package.json'));
const pg = require('pg');
const dist = (file) => require(path.join(root, 'services/webhooks/dist', file));
const { insertEvents, insertDeliveries } = dist('ingest/eventRepo.js');
const { claimDueDeliveriesInTransaction, claimFedDeliveries } = dist('claim/claimRepo.js');
const { recordSucceededAttempts } = dist('outcome/attemptRepo.js');
const { attemptRecordOf } = dist('outcome/recordOutcome.js');
const { keepHistoryPartitions } = dist('maintenance/historyPartitions.js');

const ROUNDS = Number(process.env.ROUNDS ?? 5);
/** Each attempt: a receiver's quick 2xx, recorded as the worker records it (attemptRecordOf). */
const ANSWERED_2XX = {
  ok: true,
  status: 200,
  errorClass: undefined,
  error: undefined,
  excerpt: 'ok',
  response: { headers: [], body: 'ok', truncated: false, bytes: 2 },
  retryAfter: undefined,
  timedOut: false,
  durationMs: 3,
};
const REQUEST_HEADERS = [{ name: 'content-type', value: 'application/json' }];
/**
 * RECEIVERS=10000: the receivers, 5 to a brand (S10's platform; each event goes to one brand's
 * 5, so a batch holds deliveries of many receivers); by default 10 of one brand (S6's).
 */
const RECEIVERS = Number(process.env.RECEIVERS ?? 10);
const PER_BRAND = RECEIVERS > 10 ? 5 : RECEIVERS;
const CHUNK = 20;
const CHUNKS = 20;
const CLAIMS = 300;
const BATCH = Number(process.env.BATCH ?? 12);

/** CPU milliseconds the process has used (user + system), from /proc. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const name = newDatabaseName();
const url = databaseUrl(name);
await createDatabase(name);
try {
  execFileSync(process.execPath, [path.join(root, 'services/webhooks/dist/migrate.js')], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, LOG_LEVEL: 'warn' },
  });
  const pool = new pg.Pool({ connectionString: url, options: '-c search_path=webhooks,public' });
  await keepHistoryPartitions(pool, {
    historyMs: 30 * 86_400_000,
    detailMs: 14 * 86_400_000,
    batchSize: 1000,
  });
  const brands = RECEIVERS / PER_BRAND;
  await pool.query(
    `insert into receivers (id, brand_id, url, label, events, secret_ciphertext, secret_key_id, created_by, created_at)
     select 'rcv_statements' || i, 'br_statements' || (i / $1), 'https://receiver.example/hook', 'r' || i,
       '{submission.approved}', '\\x00', 'k1', 'bench', now() - interval '1 day'
     from generate_series(0, $2 - 1) i`,
    [PER_BRAND, RECEIVERS],
  );
  await pool.query('analyze receivers');
  const client = await pool.connect();
  // the drop in `finally` ends this backend when a step failed: the step's error is the one to see
  client.on('error', () => {});
  const pid = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
  let seq = 0;
  const event = () => ({
    id: `evt_statements${seq++}`,
    brandId: `br_statements${(seq * 7919) % brands}`,
    type: 'submission.approved',
    createdAt: new Date().toISOString(),
    objectJson: '{"id":"sub_statements","status":"approved"}',
    test: false,
    producer: 'bench',
    traceparent: null,
    tracestate: null,
  });
  const ingestChunk = async () => {
    const events = Array.from({ length: CHUNK }, event);
    await client.query('begin');
    const stored = await insertEvents(client, events);
    const deliveries = events.flatMap((e) =>
      (stored.receivers.get(e.id) ?? []).map((receiverId) => ({
        id: `dlv_statements${seq++}`,
        eventId: e.id,
        eventAt: e.createdAt,
        eventType: e.type,
        receiverId,
        brandId: e.brandId,
      })),
    );
    await insertDeliveries(client, deliveries);
    await client.query('commit');
    return deliveries;
  };
  const scope = {
    limit: BATCH,
    perReceiver: 4,
    receiverRoom: new Map(),
    receivers: { except: [] },
    leaseMs: 90_000,
  };
  /** A worker's scan, in the transaction of its own that claimDueDeliveries gives it. */
  const scan = async (scope) => {
    await client.query('begin');
    const claimed = await claimDueDeliveriesInTransaction(client, scope);
    await client.query('commit');
    return claimed;
  };
  const measured = { ingest: [], claim: [], 'by key': [], success: [] };
  const keepHistory = async () => {
    await keepHistoryPartitions(pool, {
      historyMs: 30 * 86_400_000,
      detailMs: 14 * 86_400_000,
      batchSize: 1000,
    });
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const way of ['claim', 'by key']) {
      // ingest: CHUNKS chunks, PostgreSQL CPU per delivery created
      const made = [];
      let before = cpuMs(pid);
      for (let i = 0; i < CHUNKS; i++) made.push(...(await ingestChunk()));
      measured.ingest.push((cpuMs(pid) - before) / made.length);
      // the keeper's statistics, as a running service has them
      await keepHistory();
      await new Promise((r) => setTimeout(r, 1500)); // changed-row counts reach pg_stat a moment later
      await keepHistory();
      // claim, then record the batch as 2xx: PostgreSQL CPU of each, per delivery
      let claimMs = 0;
      let recordedMs = 0;
      let recorded = 0;
      for (let i = 0; i < CLAIMS; i++) {
        before = cpuMs(pid);
        const batch =
          way === 'claim'
            ? await scan(scope)
            : await claimFedDeliveries(client, made.splice(0, BATCH), 90_000);
        claimMs += cpuMs(pid) - before;
        if (batch.length === 0) break;
        const startedAt = new Date();
        const attempts = batch.map((d) =>
          attemptRecordOf(d, startedAt, ANSWERED_2XX, REQUEST_HEADERS),
        );
        before = cpuMs(pid);
        await recordSucceededAttempts(client, attempts);
        recordedMs += cpuMs(pid) - before;
        recorded += batch.length;
      }
      measured[way].push(claimMs / recorded);
      measured.success.push(recordedMs / recorded);
    }
  }
  client.release();
  await pool.end();
  const row = (step, what) =>
    `${step.padEnd(8)} ${median(measured[step]).toFixed(3).padStart(6)} ms  (${measured[step].map((x) => x.toFixed(3)).join(', ')})  ${what}`;
  console.log(
    `PostgreSQL CPU per delivery, median of ${ROUNDS} rounds (each round's figure in brackets):`,
  );
  console.log(row('ingest', `chunks of ${CHUNK} events x ${PER_BRAND} receivers of ${RECEIVERS}`));
  console.log(row('claim', `scans for up to ${BATCH} out of the backlog`));
  console.log(row('by key', `claims of ${BATCH} by primary key (the feed)`));
  console.log(row('success', `batches of up to ${BATCH} 2xx recorded in one statement`));
} finally {
  await dropDatabase(name);
}
