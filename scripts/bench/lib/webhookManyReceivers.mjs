// S10 (issue 64, ten thousand receivers): what the pipeline costs as the platform grows in
// brands and receivers rather than in history (S9) or one brand's size. The same day of
// business changes through ours twice, in the same run: over 2,000 brands with 5 receivers each
// (10,000 HTTPS receivers, each on its own port: its own origin, as distinct hosts are), and
// over 2 brands with 5 each (10 receivers). The day:
//   - most brands are quiet and a few hundred busy: brand 0 gets 10 % of the changes, the
//     other SETTINGS.s10BusyBrands - 1 busy ones 80 %, the rest share 10 % (at 10 receivers
//     brand 1 takes the other 90 %);
//   - its rate rises and falls as a day's does, compressed into SETTINGS.s10Seconds: ten
//     "hours" of paced approvals at 0.4, 0.6, 0.9, 1.2, 1.5, 1.5, 1.2, 0.9, 0.5, 0.3 times
//     SETTINGS.s10Rate changes a second (x 5 receivers = deliveries);
//   - some receivers are slow: every 50th answers 204 only after 2 s (none among the 10);
//   - brand 0's five receivers answer at once: the busy fast receivers, with the same share of
//     the day at either size (their commit-to-2xx p99 is the figure).
//   - it follows a day before: one change to each busy brand, delivered before it begins, as
//     a running service's day meets receivers it has delivered to (BENCH_S10_COLD=1: brand 0's
//     alone, a cold start).
// Ours runs as the Helm chart deploys it: the admin role (through which the receivers are
// added) in a process of its own, the consumer and the worker in the process that delivers.
// Figures of each: CPU per delivery of the webhooks processes and their PostgreSQL backends (the
// claim is the part that could grow with receivers: the feed's turn over them, the lanes' per
// receiver state, the scan's ranking), the busy fast receivers' commit-to-2xx p50 and p99 and
// each stage of their way (webhookStages.mjs), the delivering process's RSS peak over the day
// (and at its start) and its live heap after a full GC at the end, the database's work a
// delivery (commits, buffers, WAL, rows written by table), and
// the claims the worker made by key (feed) and by scanning the table. Targets (report.mjs):
// CPU per delivery and p99 within 1.2x of the 10-receiver figures; memory within its bound
// (RSS under 200 MB, as every process of the system). Validity: every delivery arrives, every
// signature verifies.
import pg from 'pg';
import { percentile } from './load.mjs';
import { createEnterpriseBrands, insertSubmissions, pooled } from './seed.mjs';
import { createMigratedDatabase, markMemory } from './stack.mjs';
import { rssMb } from './processes.mjs';
import { ADMIN_TOKEN, SETTINGS, round, say } from './settings.mjs';
import { readCpu } from './webhooks.mjs';
import { pipelineStages, stagesText } from './webhookStages.mjs';
import {
  approveAll,
  approvePaced,
  awaitDeliveries,
  deliveryLog,
  startWebhookRig,
} from './webhookRig.mjs';

const RECEIVERS_PER_BRAND = 5;
/** A day's shape: each "hour"'s rate as a multiple of SETTINGS.s10Rate. */
const DAY = [0.4, 0.6, 0.9, 1.2, 1.5, 1.5, 1.2, 0.9, 0.5, 0.3];
/** Every SLOW_EVERY-th receiver answers after 2 s (webhookReceivers.mjs `slow`). */
const SLOW_EVERY = 50;

/** A small deterministic generator (mulberry32), so both sizes get the same kind of day. */
function random(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The brand of each change of the day, in order: brand 0 (whose receivers are measured) 10 %,
 * the other busy brands (up to `busy`) 80 %, the rest 10 % (with no quiet brand, the other
 * busy ones take it).
 */
function brandsOfChanges(changes, brands, busy) {
  const next = random(64);
  return Array.from({ length: changes }, () => {
    const x = next();
    if (x < 0.1) return 0;
    if (busy >= brands || x < 0.9) return 1 + Math.floor(next() * (busy - 1));
    return busy + Math.floor(next() * (brands - busy));
  });
}

/** Pending submission ids of each brand, oldest first, in one query. */
async function pendingByBrand(dbUrl, brandIds) {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `select brand_id, id from records.submissions
       where brand_id = any($1) and status = 'pending' order by created_at, id`,
      [brandIds],
    );
    const byBrand = new Map(brandIds.map((b) => [b, []]));
    for (const r of rows) byBrand.get(r.brand_id).push(r.id);
    return byBrand;
  } finally {
    await client.end();
  }
}

/**
 * VACUUM ANALYZE of the day's database before the day is measured: production's autovacuum
 * would have cleaned up after the set-up (these machines run with it off). Before each day had
 * a database of its own, a second round's 10-receiver day paid for the dead rows of the
 * 10,000-receiver day before it (its PostgreSQL CPU a delivery 1.35-1.41 ms against 0.84-0.87).
 */
async function vacuumAnalyze(dbUrl) {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    await client.query('vacuum analyze');
  } finally {
    await client.end();
  }
}

/**
 * What the day's database has done so far: its commits, buffer accesses and sessions (pg_stat_database),
 * the rows written to each webhooks table (pg_stat_user_tables: inserts, updates, of them HOT)
 * and the cluster's WAL (pg_stat_wal: records, full-page images, bytes; records' writes too,
 * the same at either size). Backends report their counts within a second of a transaction,
 * so it is read a second and a half after the day's last delivery.
 */
async function databaseWork(dbUrl) {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const db = await client.query(
      `select xact_commit::float8 as commits, blks_hit::float8 + blks_read::float8 as blocks,
         sessions::float8 as sessions
       from pg_stat_database where datname = current_database()`,
    );
    const tables = await client.query(
      `select relname, n_tup_ins::float8 as ins, n_tup_upd::float8 as upd,
         n_tup_hot_upd::float8 as hot
       from pg_stat_user_tables where schemaname = 'webhooks'`,
    );
    const wal = await client.query(
      `select wal_records::float8 as records, wal_fpi::float8 as fpi, wal_bytes::float8 as bytes
       from pg_stat_wal`,
    );
    return {
      ...db.rows[0],
      wal: wal.rows[0],
      tables: Object.fromEntries(tables.rows.map((t) => [t.relname, t])),
    };
  } finally {
    await client.end();
  }
}

/** `after` - `before` of databaseWork, per delivery; tables with no writes left out. */
function databaseWorkPerDelivery(before, after, deliveries) {
  const per = (a, b) => round((a - b) / deliveries, 3);
  const tables = {};
  for (const [name, t] of Object.entries(after.tables)) {
    const b = before.tables[name] ?? { ins: 0, upd: 0, hot: 0 };
    if (t.ins === b.ins && t.upd === b.upd) continue;
    tables[name] = { ins: per(t.ins, b.ins), upd: per(t.upd, b.upd), hot: per(t.hot, b.hot) };
  }
  return {
    commits: per(after.commits, before.commits),
    // connections opened to the database over the day, per delivery (a new backend builds its
    // caches and prepares each named statement again)
    sessions: per(after.sessions, before.sessions),
    blocks: per(after.blocks, before.blocks),
    wal: {
      records: per(after.wal.records, before.wal.records),
      fpi: per(after.wal.fpi, before.wal.fpi),
      bytes: per(after.wal.bytes, before.wal.bytes),
    },
    tables,
  };
}

/**
 * The webhooks worker's claims so far, by way (feed: by key; scan: a search of the table), and
 * its event-loop delay since the last read.
 */
async function claimsByWay(opsPort) {
  const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  const count = (way) =>
    [
      ...text.matchAll(
        new RegExp(`^webhook_deliveries_claimed_total\\{[^}]*way="${way}"[^}]*\\} (\\S+)$`, 'gm'),
      ),
    ].reduce((sum, m) => sum + Number(m[1]), 0);
  // prom-client's event-loop figures cover the span since the last scrape (its histogram is
  // reset at each): read after the day, the day's
  const lagMs = (name) => {
    const m = text.match(
      new RegExp(`^nodejs_eventloop_lag_${name}_seconds(?:\\{[^}]*\\})? (\\S+)$`, 'm'),
    );
    return m ? round(Number(m[1]) * 1000, 1) : undefined;
  };
  return {
    feed: count('feed'),
    scan: count('scan'),
    loopDelay: { p99: lagMs('p99'), max: lagMs('max') },
  };
}

/**
 * One day through ours over `brandsCount` brands of 5 receivers, on a database of its own: each
 * day starts from the same empty history, so neither pays for what the days before it left (the
 * history partitions' ANALYZE that the webhooks maintenance runs in place of autovacuum, which
 * these machines run without, grew with them: +1.4 s over the second day of a round, the largest
 * item of S10's PostgreSQL difference on 2026-11-27).
 */
async function runManyReceiversDay(runCtx, day) {
  const db = await createMigratedDatabase();
  try {
    return await measureDay({ ...runCtx, dbName: db.dbName, dbUrl: db.dbUrl }, day);
  } finally {
    await db.drop();
  }
}

async function measureDay(ctx, { brandsCount, label, system = 'ours' }) {
  const count = brandsCount * RECEIVERS_PER_BRAND;
  const busy = Math.min(brandsCount, SETTINGS.s10BusyBrands);
  const rig = await startWebhookRig(ctx, {
    count,
    system,
    // as the Helm chart deploys it: the 10,000 receivers are added through the admin role's
    // process, and the consumer and worker's process holds what delivering needs (its RSS is
    // the figure; the admin process's is shown beside it)
    adminApart: true,
    webhooksEnv: {
      WEBHOOK_MAX_RECEIVERS_PER_BRAND: String(RECEIVERS_PER_BRAND),
      // BENCH_S10_KEPT_RECEIVERS: the receivers whose connections the worker keeps, for a
      // run that weighs memory against new connections (the service's default otherwise)
      ...(SETTINGS.s10KeptReceivers
        ? { DELIVERY_KEPT_RECEIVERS: String(SETTINGS.s10KeptReceivers) }
        : {}),
    },
  });
  const deliveries = deliveryLog(rig.control);
  try {
    const setupStart = Date.now();
    const brands = await createEnterpriseBrands(rig.recordsAddress, ADMIN_TOKEN, brandsCount, {
      namePrefix: `S10 ${label}`,
    });
    await pooled(count, 16, (i) =>
      rig.addReceiver(brands[Math.floor(i / RECEIVERS_PER_BRAND)].brandId, i),
    );
    if (count >= SLOW_EVERY) await rig.setMode(0, count, 'slow', SLOW_EVERY);
    const seconds = SETTINGS.s10Seconds;
    const perHour = seconds / DAY.length;
    const hourChanges = DAY.map((m) => Math.max(1, Math.round(m * SETTINGS.s10Rate * perHour)));
    const changes = hourChanges.reduce((a, b) => a + b, 0);
    const owners = brandsOfChanges(changes, brandsCount, busy);
    const need = new Map();
    for (const b of owners) need.set(b, (need.get(b) ?? 0) + 1);
    const brandIds = brands.map((b) => b.brandId);
    const dayBefore = SETTINGS.s10Cold ? 1 : SETTINGS.s10DayBefore;
    // more for the warm-up's changes
    await insertSubmissions(ctx.dbUrl, brandIds, Math.max(...need.values()) + dayBefore, {
      status: 'pending',
    });
    const pending = await pendingByBrand(ctx.dbUrl, brandIds);
    const ids = owners.map((b) => pending.get(brandIds[b]).pop());
    // The day before: SETTINGS.s10DayBefore changes, one after the other, to each busy brand
    // (one to brand 0 alone with BENCH_S10_COLD=1), so the measured day starts as a day of a
    // running service does, its busy receivers delivered to before, more than once (the
    // connections the worker keeps, from a receiver's second attempt on; the TLS sessions it
    // holds). Without it the 60-second day opens a first connection to each receiver it reaches
    // (1,890 at BENCH_S10_RATE=20, 1,385 of them busy brands'): a full TLS handshake each, which
    // a real day spreads over 1,440 times as many deliveries. The quiet brands get none, as in a
    // day.
    const warmBrands = SETTINGS.s10Cold ? brandIds.slice(0, 1) : brandIds.slice(0, busy);
    const warm = [];
    for (let i = 0; i < dayBefore; i++) {
      const changed = await approveAll(
        rig.records,
        warmBrands.map((brandId) => pending.get(brandId).pop()),
      );
      await awaitDeliveries(deliveries, changed, RECEIVERS_PER_BRAND, 120_000, rig.pipeline);
      warm.push(...changed);
    }
    await vacuumAnalyze(ctx.dbUrl);
    say(
      `S10 ${label}: ${brandsCount} brands, ${count} receivers (${count >= SLOW_EVERY ? count / SLOW_EVERY : 0} slow), ${busy} busy; set up in ${round((Date.now() - setupStart) / 1000, 1)} s, ${warm.length} warm-up change(s); a day of ${changes} changes over ${seconds} s`,
    );

    const cpu = rig.cpuReaders();
    const claimsBefore = await claimsByWay(rig.sender.opsPort);
    const tlsBefore = await rig.counters();
    const before = await readCpu(cpu);
    const workBefore = await databaseWork(ctx.dbUrl);
    // the RSS the set-up left (10,000 receivers created through the admin role) beside the day's peak
    const rssAtStart = rssMb(rig.sender.pid);
    let rssPeak = rssAtStart;
    const rssTimer = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssMb(rig.sender.pid));
    }, 250);
    const events = [];
    const answered = new Map();
    let refused = 0;
    try {
      let next = 0;
      for (const [h, n] of hourChanges.entries()) {
        const hour = await approvePaced(rig.records, ids.slice(next, (next += n)), n / perHour);
        events.push(...hour.events);
        for (const [id, at] of hour.answered) answered.set(id, at);
        refused += hour.refused;
        if (h === DAY.length - 1) break;
      }
      const done = await awaitDeliveries(
        deliveries,
        events,
        RECEIVERS_PER_BRAND,
        180_000,
        rig.pipeline,
      );
      const after = await readCpu(cpu);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const workAfter = await databaseWork(ctx.dbUrl);
      const claimsAfter = await claimsByWay(rig.sender.opsPort);
      const tlsAfter = await rig.counters();
      const n = Math.max(1, done.deliveries.length);
      const perDelivery = (k) => round(((after[k] - before[k]) * 1000) / n, 4);
      const fastDeliveries = done.deliveries.filter((d) => d[3] < RECEIVERS_PER_BRAND);
      const fast = fastDeliveries.map((d) => d[0] - d[2]).filter(Number.isFinite);
      // where the busy fast receivers' time goes, stage by stage (webhookStages.mjs)
      const stages = await pipelineStages(ctx.dbUrl, fastDeliveries, answered);
      // the sender by its own name: ours is `webhooks`, the A/B's other build `webhooks-b`
      const memory = await markMemory({ timeline: [] }, `S10 ${label}`, [rig.sender.name]);
      const figures = {
        label,
        brands: brandsCount,
        receivers: count,
        changes: events.length,
        refused,
        deliveries: done.deliveries.length,
        cpuMsPerDelivery: {
          webhooks: perDelivery('sender'),
          'postgres (webhooks)': perDelivery('postgres (sender)'),
          'records (relay)': perDelivery('records (relay)'),
          receivers: perDelivery('receivers'),
        },
        fastReceiver: {
          deliveries: fast.length,
          p50: percentile(fast, 50),
          p99: percentile(fast, 99),
          stages,
        },
        claims: {
          feed: claimsAfter.feed - claimsBefore.feed,
          scan: claimsAfter.scan - claimsBefore.scan,
        },
        // new TLS connections the receivers accepted over the day (first contact, or a pool
        // reopened after the worker let it go), and how many resumed a session
        handshakes: {
          all: tlsAfter.handshakes - tlsBefore.handshakes,
          resumed: tlsAfter.resumed - tlsBefore.resumed,
        },
        // the receivers process's event-loop delay over the day: what its receipt times carry
        receiversLoopDelayMs: tlsAfter.loopDelay,
        webhooksLoopDelayMs: claimsAfter.loopDelay,
        rssPeakMb: round(rssPeak, 1),
        rssAtStartMb: round(rssAtStart, 1),
        adminRssMb: rig.admin ? round(rssMb(rig.admin.pid), 1) : undefined,
        liveHeapMb: memory[rig.sender.name]?.liveHeap,
        // where the PostgreSQL difference comes from: the database's work a delivery
        database: databaseWorkPerDelivery(workBefore, workAfter, n),
      };
      say(
        `S10 ${label}: ${figures.deliveries} deliveries (${done.deliveries.length - done.pairs} duplicates); CPU ms/delivery ${JSON.stringify(figures.cpuMsPerDelivery)}; busy fast receivers p50 ${figures.fastReceiver.p50} ms, p99 ${figures.fastReceiver.p99} ms (${fast.length}; stages p50/p99/max ms: ${stagesText(stages)}); claims feed ${figures.claims.feed}, scan ${figures.claims.scan}; TLS handshakes ${figures.handshakes.all} (${figures.handshakes.resumed} resumed); loop delay p99/max: receivers ${figures.receiversLoopDelayMs.p99}/${figures.receiversLoopDelayMs.max} ms, webhooks ${figures.webhooksLoopDelayMs.p99}/${figures.webhooksLoopDelayMs.max} ms; webhooks RSS peak ${figures.rssPeakMb} MB (${figures.rssAtStartMb} at the day's start), live heap ${figures.liveHeapMb} MB; the admin role's process ${figures.adminRssMb} MB`,
      );
      say(`S10 ${label}: the database a delivery: ${JSON.stringify(figures.database)}`);
      if (done.pairs < done.expected)
        ctx.invalid.push(
          `S10 ${label}: ${done.pairs} of ${done.expected} deliveries arrived within 180 s`,
        );
      figures.verified = await rig.checkSignatures(ctx.invalid, `S10 ${label}`);
      return figures;
    } finally {
      clearInterval(rssTimer);
    }
  } finally {
    await rig.stop();
  }
}

/**
 * S10: the 10-receiver day, then the 10,000-receiver day, SETTINGS.s10Rounds times. With
 * BENCH_PEER_WEBHOOKS (another build's main.js), each round also runs the 10,000-receiver day
 * through that build (system B), for an A/B of two builds in the same rounds: shown, not judged.
 */
export async function runManyReceiversScenario(ctx) {
  const results = { few: [], many: [], peer: [] };
  const many = `${SETTINGS.s10Brands * RECEIVERS_PER_BRAND} receivers`;
  for (let r = 1; r <= SETTINGS.s10Rounds; r++) {
    results.few.push(await runManyReceiversDay(ctx, { brandsCount: 2, label: '10 receivers' }));
    const ours = () => runManyReceiversDay(ctx, { brandsCount: SETTINGS.s10Brands, label: many });
    const peer = () =>
      runManyReceiversDay(ctx, {
        brandsCount: SETTINGS.s10Brands,
        label: `${many} (B: ${SETTINGS.peerWebhooksMain})`,
        system: 'B',
      });
    if (!SETTINGS.peerWebhooksMain) results.many.push(await ours());
    // the two builds' days in turn, the first of them alternating by round
    else if (r % 2 === 1) {
      results.many.push(await ours());
      results.peer.push(await peer());
    } else {
      results.peer.push(await peer());
      results.many.push(await ours());
    }
  }
  return results;
}
