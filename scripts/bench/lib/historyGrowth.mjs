// S9 (issue 36, bounded history): weeks of delivery history written one after another with
// the retention at a short setting (DELIVERY_HISTORY_RETENTION_MS 14 days, its minimum), and
// after each week: the history's size on disk and the latency of the worker's claim. The
// weeks are the event time, simulated (the keeper is run as of each week's end, as the
// worker's maintenance pass would then), so millions of deliveries across partitions take
// minutes, not months; what is measured is real: the service's own keeper and claim (the
// built dist modules) on PostgreSQL.
//   - each week: SETTINGS.historyPerWeek delivered deliveries (two receivers per event, one
//     attempt each) with their events spread over the week;
//   - the claim: 20 receivers with 10 due deliveries each (at the real now), claimed 32 at a
//     time and rolled back, SETTINGS.historyClaims times: p50 and p99;
//   - the size: every partition of events, deliveries, attempts and attempt_details.
// Flat means: once the retention has engaged (after three weeks), the size stays within 1.25x
// and the claim's p99 within 1.5x of the first weeks'.
import { createRequire } from 'node:module';
import pg from 'pg';
import { SETTINGS, round, say } from './settings.mjs';

const require = createRequire(import.meta.url);
const {
  claimDueDeliveriesInTransaction,
} = require('../../../services/webhooks/dist/claim/claimRepo.js');
const {
  keepHistoryPartitions,
} = require('../../../services/webhooks/dist/maintenance/historyPartitions.js');

const DAY = 24 * 3600_000;
const WEEK = 7 * DAY;
const RETENTION = { historyMs: 14 * DAY, detailMs: 14 * DAY, batchSize: 5_000 };
const BRAND = 'br_historyGrowth';
const RECEIVERS = 20;

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function historyBytes(db) {
  const { rows } = await db.query(
    `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as bytes,
            count(*)::int as partitions
     from pg_inherits i join pg_class p on p.oid = i.inhparent
     join pg_namespace n on n.oid = p.relnamespace join pg_class c on c.oid = i.inhrelid
     where n.nspname = 'webhooks'
       and p.relname in ('events', 'deliveries', 'attempts', 'attempt_details')`,
  );
  return { mb: round(Number(rows[0].bytes) / 1e6, 1), partitions: rows[0].partitions };
}

/** One week of delivered history: events spread over [from, from + 7 days), two deliveries each. */
async function writeWeek(db, week, from, deliveries) {
  const events = Math.ceil(deliveries / 2);
  await db.query(
    `insert into webhooks.events (id, brand_id, type, created_at, object_json, record_id)
     select 'evt_s9w' || $1 || 'n' || g, $2, 'payout.paid',
            $3::timestamptz + (g::float8 / $4) * interval '7 days',
            '{"id":"po_s9_' || g || '","object":"payout","amount":125000,"currency":"usd","status":"paid"}',
            'po_s9_' || g
     from generate_series(1, $4) g`,
    [week, BRAND, from, events],
  );
  await db.query(
    `insert into webhooks.deliveries (id, event_id, event_at, event_type, receiver_id, brand_id,
       status, attempts, last_status, created_at, completed_at, next_attempt_at)
     select 'dlv_s9w' || $1 || 'n' || e.g || 'r' || r, 'evt_s9w' || $1 || 'n' || e.g, e.at,
            'payout.paid', 'rcv_s9_' || r, $2, 'succeeded', 1, 204, e.at, e.at, e.at
     from (select g, $3::timestamptz + (g::float8 / $4) * interval '7 days' as at
           from generate_series(1, $4) g) e
     cross join generate_series(1, 2) r`,
    [week, BRAND, from, events],
  );
  await db.query(
    `insert into webhooks.attempts (delivery_id, number, event_at, started_at, duration_ms, status_code)
     select id, 1, event_at, event_at, 42, 204 from webhooks.deliveries
     where brand_id = $1 and event_at >= $2 and event_at < $2::timestamptz + interval '7 days'`,
    [BRAND, from],
  );
}

/**
 * The claim's latency over the due deliveries (each claim rolled back, so all stay due). The
 * rolled-back leases leave dead row versions in the live partition, which production's
 * autovacuum clears and these machines' (autovacuum off) would not: that partition is
 * vacuumed first, so what grows is the history alone. Five claims warm the plan first.
 */
async function claimLatency(db, claims) {
  const { rows } = await db.query(
    `select tableoid::regclass::text as live from webhooks.deliveries where id like 'dlv_s9due%' limit 1`,
  );
  await db.query(`vacuum ${rows[0].live}`);
  const ms = [];
  for (let i = -5; i < claims; i++) {
    await db.query('begin');
    const t0 = process.hrtime.bigint();
    const claimed = await claimDueDeliveriesInTransaction(db, {
      limit: 32,
      perReceiver: 4,
      receiverRoom: new Map(),
      receivers: { except: [] },
      leaseMs: 60_000,
    });
    if (i >= 0) ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    await db.query('rollback');
    if (claimed.length !== 32)
      throw new Error(`S9: a claim took ${claimed.length} deliveries, not 32`);
  }
  ms.sort((a, b) => a - b);
  return { p50: round(percentile(ms, 0.5), 2), p99: round(percentile(ms, 0.99), 2) };
}

export async function runHistoryScenario(ctx) {
  const weeks = SETTINGS.historyWeeks;
  const perWeek = SETTINGS.historyPerWeek;
  // the service's queries name their tables unqualified, in its own schema
  const pool = new pg.Pool({
    connectionString: ctx.dbUrl,
    max: 2,
    options: '-c search_path=webhooks',
  });
  const db = await pool.connect();
  try {
    await db.query(
      `insert into webhooks.receivers (id, brand_id, url, label, events, secret_ciphertext,
         secret_key_id, created_by, created_at)
       select 'rcv_s9_' || r, $1, 'https://127.0.0.1:9/hooks/' || r, 'S9 ' || r, '{payout.paid}',
              '\\x00', 'k1', 'bench', now() - interval '1 year'
       from generate_series(1, $2) r`,
      [BRAND, RECEIVERS],
    );
    // the due deliveries every claim finds, at the real now (a live week)
    await db.query(
      `insert into webhooks.events (id, brand_id, type, created_at, object_json)
       select 'evt_s9due' || r || 'n' || g, $1, 'payout.paid', now() - interval '1 minute', '{"id":"po_due"}'
       from generate_series(1, $2) r cross join generate_series(1, 10) g`,
      [BRAND, RECEIVERS],
    );
    await db.query(
      `insert into webhooks.deliveries (id, event_id, event_at, event_type, receiver_id, brand_id, next_attempt_at)
       select 'dlv_s9due' || e.id, e.id, e.created_at, 'payout.paid',
              'rcv_s9_' || substring(e.id from 'evt_s9due([0-9]+)n'), $1, now() - interval '1 minute'
       from webhooks.events e where e.id like 'evt_s9due%'`,
      [BRAND],
    );
    const first = Math.floor((Date.now() - (weeks + 1) * WEEK) / WEEK) * WEEK;
    const rows = [];
    let written = 0;
    for (let week = 0; week < weeks; week++) {
      const from = new Date(first + week * WEEK);
      await keepHistoryPartitions(pool, RETENTION, new Date(from.getTime() + DAY));
      await writeWeek(db, week, from, perWeek);
      written += perWeek;
      const kept = await keepHistoryPartitions(pool, RETENTION, new Date(from.getTime() + WEEK));
      await db.query('analyze webhooks.deliveries, webhooks.events, webhooks.attempts');
      const size = await historyBytes(db);
      const claim = await claimLatency(db, SETTINGS.historyClaims);
      const row = { week, written, dropped: kept.dropped.length, ...size, claim };
      rows.push(row);
      say(
        `S9 week ${week + 1}/${weeks}: ${written.toLocaleString('en')} deliveries written, history ${size.mb} MB in ${size.partitions} partitions, claim p50 ${claim.p50} ms p99 ${claim.p99} ms`,
      );
    }
    const settled = rows.slice(Math.min(3, rows.length - 1));
    const base = settled[0];
    const last = rows.at(-1);
    return {
      weeks,
      perWeek,
      written,
      retentionDays: RETENTION.historyMs / DAY,
      rows,
      sizeRatio: round(last.mb / base.mb, 2),
      claimP99Ratio: round(last.claim.p99 / rows[0].claim.p99, 2),
      last,
    };
  } finally {
    // the bench's database is dropped at the end: nothing to delete (millions of rows)
    db.release();
    await pool.end();
  }
}
