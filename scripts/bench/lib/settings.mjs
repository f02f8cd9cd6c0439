// The benchmark's settings (environment knobs), targets, fixed secrets and paths, and its
// console voice. Everything a scenario module needs to know about the run, in one place.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Issue 10's targets (and later issues'), set from B0; not lowered to today's figures. */
export const TARGETS = {
  /**
   * The walk: pages/s, p99, and CPU per page of gateway + records vs B0's node. Issue 25 set
   * 0.8 and 1.3; issue 46 (item 3) raised them to past the monolith: 1.0 and 1.2; issue 64
   * (item 3) to B0's CPU: 1.0 and 1.0.
   */
  s1VsB0: 1.0,
  s1P99VsB0: 1.5,
  s1NodeCpuVsB0: 1.0,
  /** Issue 10's S1 on the first page, now S1f: kept as they were. */
  s1fVsB0: 0.8,
  s1fP99VsB0: 1.5,
  s2VsB0: 0.8,
  /** S3, MCP tools/call on the walk, against S1 REST on the walk in the same rounds. */
  s3VsS1: 0.85,
  depthRatio: 1.2,
  rowsReadPerRow: 1.05,
  rowsWrittenPerPage: 0.1,
  rssPeakMb: 200,
  liveHeapGrowth: 1.3,
  s5ReplayVsS1: 1,
  s6DeliveriesPerSecond: 1000,
  s6CommitTo2xxP99Ms: 1000,
  /**
   * Issue 34, S6n: a fast receiver's p99 while 50 receivers hang, at most 1.5x its p99 alone
   * and under 1 s; S6c: 1,000 waiting deliveries all delivered within 60 s of the receiver's
   * first 2xx, and of a recover.
   */
  s6nP99VsAlone: 1.5,
  s6nP99Ms: 1000,
  s6cSeconds: 60,
  /** Issue 36: webhooks + its PostgreSQL backends' CPU per delivery (S6 burst, S6f fan-out). */
  s6CpuMsPerDelivery: 1.0,
  /**
   * Issue 46, against W0 (the sender a brand would build on graphile-worker) in the same
   * interleaved rounds (medians of the per-round ratios): deliveries/s out of the burst at
   * least 1.5x W0's (S6, S6f); CPU per delivery of the sender and its PostgreSQL backends at
   * most 0.7x W0's (S6, S6f); commit-to-2xx p99 at the paced load at most W0's; and the knee
   * (the paced level where the p99 passes 1 s) past W0's. Issue 64: the same targets against
   * the better of W0 and W1 (the sender on BullMQ) in each round, the CPU of every process of
   * the sender and its stores (W1's Redis too).
   */
  s6VsW0: 1.5,
  s6CpuVsW0: 0.7,
  s6P99VsW0: 1,
  s6KneeP99Ms: 1000,
  /**
   * Issue 36, S9: history that stays bounded. After 2 million deliveries across weekly
   * partitions (retention 14 days), the history's size within 1.25x of what it was when the
   * retention engaged, and the claim's p99 within 1.5x of the first week's.
   */
  s9SizeRatio: 1.25,
  s9ClaimP99Ratio: 1.5,
  /**
   * Issue 64, S10: a day over 10,000 receivers (2,000 brands) against the same day over 10:
   * the webhooks process's and its PostgreSQL's CPU per delivery and the busy fast receiver's
   * p99 within 1.2x; the webhooks process's memory bounded (RSS under 200 MB, as every process).
   */
  s10CostVsFew: 1.2,
  s10P99VsFew: 1.2,
  s10RssMb: 200,
  otherBrandsRatio: 1.2,
  /** Issue 18: S7 polls/s at least 3x B0's, and CPU per poll of the whole system below B0's. */
  s7VsB0: 3,
  s7CpuVsB0: 1,
  /** Issue 44, R1: one record by id, at least 0.9x B0's rate and p99 at most 1.5x B0's. */
  /** Issue 44, E1: an events page at least 0.8x a list page's rate; E2: an unchanged events poll as cheap as S7's (0.9x). */
  e1VsList: 0.8,
  e2VsS7: 0.9,
  r1VsB0: 0.9,
  r1P99VsB0: 1.5,
};

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const OUT_DIR = path.join(REPO_ROOT, '.local/bench');
export const LOG_DIR = path.join(OUT_DIR, 'logs');
export const PROFILE_DIR = path.join(OUT_DIR, 'profiles');
export const MAINS = {
  records: path.join(REPO_ROOT, 'services/records/dist/main.js'),
  recordsMigrate: path.join(REPO_ROOT, 'services/records/dist/migrate.js'),
  plans: path.join(REPO_ROOT, 'services/plans/dist/main.js'),
  plansMigrate: path.join(REPO_ROOT, 'services/plans/dist/migrate.js'),
  webhooks: path.join(REPO_ROOT, 'services/webhooks/dist/main.js'),
  webhooksMigrate: path.join(REPO_ROOT, 'services/webhooks/dist/migrate.js'),
  gateway: path.join(REPO_ROOT, 'gateway/dist/main.js'),
  ceiling: path.join(REPO_ROOT, 'scripts/bench/baselineServer.mjs'),
  b0: path.join(REPO_ROOT, 'scripts/bench/baselineMonolith.mjs'),
  w0: path.join(REPO_ROOT, 'scripts/bench/w0/main.mjs'),
  w1: path.join(REPO_ROOT, 'scripts/bench/w1/main.mjs'),
};
export const GC_PROBE = pathToFileURL(path.join(REPO_ROOT, 'scripts/bench/gcProbe.mjs')).href;
/**
 * V8 heap flags of the gateway and of records, as the Dockerfile, Helm chart, compose file
 * and scripts/up.sh start them (BENCHMARKS.md "Memory"; the gateway's pretenuring: issue 25,
 * sixth pass).
 */
export const HEAP_FLAGS = [
  '--max-semi-space-size=8',
  '--heap-growing-percent=100',
  '--no-allocation-site-pretenuring',
];
export const RECORDS_HEAP_FLAGS = ['--max-semi-space-size=16', '--heap-growing-percent=200'];
/**
 * The webhooks process's: its RSS under S6's burst 234 -> 152 MB, its CPU a delivery no higher;
 * the old generation grown by half its live heap, not all of it (issue 64, S10: a 10,000-receiver
 * day's peak 214 -> 203 MB, S6's 151 -> 141; CPU within the rounds' noise).
 */
const WEBHOOKS_HEAP_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];

export const INTERNAL_TOKEN = 'bench-internal-token-0123456789abcdef';
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef-0123';
export const CURSOR_SECRET = 'bench-cursor-secret-0123456789abcdef-0123456789';

const intEnv = (name, fallback) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`);
  return n;
};

const SMOKE = process.env.BENCH_SMOKE === '1';
export const SETTINGS = {
  /** BENCH_SMOKE=1: harness and validity only, short slices, no speed targets. */
  smoke: SMOKE,
  /** Round-robin rounds x slice seconds per arm (4 x 2 s by default), after a warm-up. */
  rounds: intEnv('BENCH_ROUNDS', SMOKE ? 1 : 4),
  sliceSeconds: intEnv('BENCH_SLICE_SECONDS', SMOKE ? 1 : 2),
  warmupSeconds: intEnv('BENCH_WARMUP_SECONDS', SMOKE ? 1 : 2),
  /** Concurrent connections of every HTTP load (the figure: 50). */
  connections: intEnv('BENCH_CONNECTIONS', SMOKE ? 8 : 50),
  /**
   * Multiplies every tier's rate limit in the gateway (RATE_LIMIT_SCALE, bench-only): one
   * Enterprise key (240 a minute) x 2,000 carries any load two cores can push, and the
   * Redis script still runs for every request.
   */
  rateLimitScale: intEnv('BENCH_RATE_LIMIT_SCALE', 2000),
  /**
   * The walk (S1, S3): brands seeded with demo records at this scale (SeedDemoData; scale
   * 2 is about 8,000 records a brand, 163 pages of 50), every page of each walked.
   */
  walkBrands: intEnv('BENCH_WALK_BRANDS', SMOKE ? 2 : 12),
  walkScale: intEnv('BENCH_WALK_SCALE', SMOKE ? 1 : 2),
  /** BENCH_WALK_ONLY=1: the walk (S1, S3) and nothing after it (A/B runs, profiles). */
  walkOnly: process.env.BENCH_WALK_ONLY === '1',
  /**
   * BENCH_WEBHOOKS_ONLY=1: the webhook scenarios and nothing else (S6, S6f, S6n beside W0, then
   * S6c and S9; their pipelines' own processes).
   */
  webhooksOnly: process.env.BENCH_WEBHOOKS_ONLY === '1',
  /**
   * BENCH_W0_ONLY=1: the webhook comparison alone (S6 with its paced ladder, S6f and S6n, ours
   * and W0 in interleaved rounds; issue 46), nothing else.
   */
  w0Only: process.env.BENCH_W0_ONLY === '1',
  /** Interleaved rounds (ours, W0, ours, W0, ...) of S6 and of S6f; S6n's (it is long). */
  /**
   * BENCH_WEBHOOKS_FLAGS: node flags for the webhooks process in S6's rigs instead of the
   * system's own (WEBHOOKS_HEAP_FLAGS), space-separated; "-" for none (a heap-flag A/B).
   */
  webhooksFlags:
    process.env.BENCH_WEBHOOKS_FLAGS === undefined
      ? WEBHOOKS_HEAP_FLAGS
      : process.env.BENCH_WEBHOOKS_FLAGS.split(' ').filter((f) => f !== '' && f !== '-'),
  /** BENCH_W0_ROUNDS=0: no S6 or S6f rounds (a run for S6n alone). */
  w0Rounds: process.env.BENCH_W0_ROUNDS === '0' ? 0 : intEnv('BENCH_W0_ROUNDS', SMOKE ? 1 : 3),
  /**
   * BENCH_PEER_WEBHOOKS=<a built webhooks main.js>: the webhook comparison's peer is that build
   * of ours (system `B`) instead of W0, for an A/B of a change within one run (e.g. a copy of
   * services/webhooks/dist edited by hand, or a worktree's build). Reported as ours / B.
   */
  peerWebhooksMain: process.env.BENCH_PEER_WEBHOOKS || undefined,
  /**
   * BENCH_PEER_WEBHOOKS_ENV="NAME=value,NAME=value": settings given to system `B` only, over
   * ours; with no BENCH_PEER_WEBHOOKS, B is our own build with these settings (an A/B of a
   * setting, e.g. DELIVERY_CONCURRENCY=64). A value may hold commas (MALLOC_CONF=a:1,b:2): a
   * pair starts only where an upper-case NAME= follows a comma.
   */
  peerWebhooksEnv: Object.fromEntries(
    (process.env.BENCH_PEER_WEBHOOKS_ENV ?? '')
      .split(/,(?=[A-Z_][A-Z0-9_]*=)/)
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  ),
  /**
   * BENCH_PEER_WEBHOOKS_FLAGS="--flag --flag": node flags for system `B` instead of ours
   * (webhooksFlags), space-separated, "-" for none; with no BENCH_PEER_WEBHOOKS, B is our own
   * build under these flags (a heap-flag A/B within one run's rounds).
   */
  peerWebhooksFlags:
    process.env.BENCH_PEER_WEBHOOKS_FLAGS === undefined
      ? undefined
      : process.env.BENCH_PEER_WEBHOOKS_FLAGS.split(' ').filter((f) => f !== '' && f !== '-'),
  /** BENCH_S6N_ROUNDS=0: none (a run for S6 and S6f rounds only). */
  s6nRounds: process.env.BENCH_S6N_ROUNDS === '0' ? 0 : intEnv('BENCH_S6N_ROUNDS', 1),
  /**
   * W0's graphile-worker concurrency (its pool one more): 24, the figure of graphile-worker's
   * own performance page (its default is 1). BENCHMARKS.md "W0" says why.
   */
  w0Concurrency: intEnv('BENCH_W0_CONCURRENCY', 24),
  /**
   * W1's BullMQ Worker concurrency: 50, the figure of BullMQ's concurrency guide (its default
   * is 1). BENCHMARKS.md "W1" says why.
   */
  w1Concurrency: intEnv('BENCH_W1_CONCURRENCY', 50),
  /**
   * BENCH_PEERS: which team-built peers run beside ours, comma-separated (W0, W1; both by
   * default, issue 64): fewer for a shorter run. The targets are on the better of those run.
   */
  peers: (process.env.BENCH_PEERS ?? 'W0,W1').split(',').filter((p) => p === 'W0' || p === 'W1'),
  /** S6n: how long the fast receiver's deliveries are waited for through W0 (and W1) once paced. */
  s6nW0WaitSeconds: intEnv('BENCH_S6N_W0_WAIT_SECONDS', SMOKE ? 5 : 60),
  /**
   * S6's paced levels, changes a second to 10 receivers (x 10 = deliveries a second), each for
   * webhookPacedSeconds: webhookPacedRate (100: today's load, its p99 the S6 figure) and these,
   * climbing; 300 only when the p99 at the level before held under 1 s, 50 only when the one at
   * 100 did not (the knee: the first level whose p99 passes 1 s). A smoke run has none.
   */
  webhookKneeRates: (process.env.BENCH_WEBHOOK_KNEE_RATES ?? (SMOKE ? '' : '150,200'))
    .split(',')
    .filter(Boolean)
    .map(Number),
  webhookKneeUpper: SMOKE ? 0 : 300,
  webhookKneeLower: SMOKE ? 0 : 50,
  /** BENCH_PLANS_ONLY=1: S5 (and its S1f REST arm) and nothing else (A/B runs, profiles). */
  plansOnly: process.env.BENCH_PLANS_ONLY === '1',
  /** BENCH_RETRIEVE_ONLY=1: R1 (records by id, and the two 404s) and nothing else; no walk seeding. */
  retrieveOnly: process.env.BENCH_RETRIEVE_ONLY === '1',
  /** BENCH_EVENTS_ONLY=1: E1 and E2 (the events feed) and nothing else; no walk seeding. */
  eventsOnly: process.env.BENCH_EVENTS_ONLY === '1',
  /** Rows of the load brand (S1f, S2: 50- and 200-row pages) and of the deep brand (S4). */
  loadRows: 1_000,
  pageSize: 50,
  bigPageSize: 200,
  deepRows: SMOKE ? 2_000 : 20_000,
  depth: SMOKE ? 1_000 : 19_000,
  depthWarmupPairs: SMOKE ? 2 : 10,
  depthPairs: SMOKE ? 10 : 100,
  grpcConcurrency: 4,
  grpcSlices: SMOKE ? 2 : 16,
  grpcSliceMs: 250,
  /**
   * S5: brands whose keys the new-plan arm rotates through, so no brand nears its 200
   * pending plans (each brand gets at most planBrandCapacity new plans; see plans.mjs).
   * The smoke run's short rounds created 390 plans on a fast machine: 10 brands leave it
   * five times that.
   */
  planBrands: SMOKE ? 10 : 100,
  planBrandCapacity: 190,
  /** S6: webhook receivers, and the paced rate of business changes for latency. */
  webhookReceivers: 10,
  webhookPacedRate: 100,
  webhookPacedSeconds: intEnv('BENCH_WEBHOOK_PACED_SECONDS', SMOKE ? 2 : 10),
  /** S6n: hanging brands x 10 receivers, and the changes queued per hanging brand (10 deliveries each). */
  neighbourHangingBrands: 5,
  neighbourQueuedPerBrand: 20,
  /** S6n: the fast receiver's paced changes a second, for this many seconds, alone and beside. */
  neighbourRate: 20,
  neighbourSeconds: intEnv('BENCH_S6N_SECONDS', SMOKE ? 2 : 20),
  /** S6f: changes to one brand's 20 receivers (20 deliveries each). */
  fanOutChanges: intEnv('BENCH_S6F_CHANGES', SMOKE ? 10 : 250),
  /** S6c: waiting deliveries of one receiver to catch up (by a recover, then by itself). */
  catchUpDeliveries: intEnv('BENCH_S6C_DELIVERIES', SMOKE ? 50 : 1_000),
  /**
   * S6c's retry schedule (the webhooks service's RETRY_TIME_SCALE): the production one in a run;
   * a fifth of it in a smoke run, whose two outages each wait for every delivery's second failed
   * attempt (1 s instead of 5 s after the first; the next retry is then a minute away, still far
   * beyond the phase). npm test's run sat idle for most of those seconds.
   */
  catchUpRetryScale: SMOKE ? '0.2' : '1',
  /** S9: simulated weeks of delivery history, deliveries per week, claims timed after each. */
  historyWeeks: intEnv('BENCH_S9_WEEKS', SMOKE ? 3 : 10),
  historyPerWeek: intEnv('BENCH_S9_PER_WEEK', SMOKE ? 2_000 : 200_000),
  historyClaims: intEnv('BENCH_S9_CLAIMS', SMOKE ? 20 : 200),
  /**
   * BENCH_S10_ONLY=1: S10 alone (issue 64: a day over 10,000 receivers against the same day over
   * 10). S10's size: brands of 5 receivers, the busy ones among them (90 % of the changes), its
   * mean rate in changes a second (x 5 deliveries), the day's length, and its rounds (each a
   * 10-receiver day and a many-receiver day).
   */
  s10Only: process.env.BENCH_S10_ONLY === '1',
  s10Brands: intEnv('BENCH_S10_BRANDS', SMOKE ? 20 : 2_000),
  s10BusyBrands: intEnv('BENCH_S10_BUSY_BRANDS', SMOKE ? 4 : 300),
  s10Rate: intEnv('BENCH_S10_RATE', SMOKE ? 10 : 40),
  s10Seconds: intEnv('BENCH_S10_SECONDS', SMOKE ? 5 : 60),
  s10Rounds: intEnv('BENCH_S10_ROUNDS', 1),
  /** BENCH_S10_KEPT_RECEIVERS: the webhooks worker's DELIVERY_KEPT_RECEIVERS in S10 (its default otherwise). */
  s10KeptReceivers: intEnv('BENCH_S10_KEPT_RECEIVERS', 0) || undefined,
  /**
   * BENCH_S10_COLD=1: S10's day starts right after the receivers are added (one warm-up change,
   * brand 0's), as before 2026-11-28 afternoon, instead of after a change to each busy brand.
   */
  s10Cold: process.env.BENCH_S10_COLD === '1',
  /**
   * BENCH_S10_DAY_BEFORE: the changes to each busy brand in the day before S10's day (2; 1 before
   * 2026-11-28 evening, when the worker came to keep a receiver's connections from its second
   * attempt on).
   */
  s10DayBefore: intEnv('BENCH_S10_DAY_BEFORE', 2),
  /** S6 burst: changes committed as fast as possible, then deliveries/s until all landed. */
  webhookBurstChanges: intEnv('BENCH_WEBHOOK_BURST', SMOKE ? 20 : 1_000),
  /** Changes of the untimed burst through each system before S6's first round (0: none). */
  webhookWarmupChanges:
    process.env.BENCH_WEBHOOK_WARMUP === '0' ? 0 : intEnv('BENCH_WEBHOOK_WARMUP', 300),
  /** The "other brands" scenario: rows of the big brand (one INSERT ... generate_series). */
  otherBrandRows: intEnv('BENCH_OTHER_BRAND_ROWS', SMOKE ? 10_000 : 1_000_000),
  otherBrandSmallRows: 10,
  otherBrandPairs: SMOKE ? 20 : 400,
  /** S8: seconds of polling, one record changed a second (so as many changes). */
  s8Seconds: intEnv('BENCH_S8_SECONDS', SMOKE ? 3 : 10),
  /** BENCH_PROFILE=1: CPU profiles of every measured process into .local/bench/profiles. */
  profile: process.env.BENCH_PROFILE === '1',
  /**
   * BENCH_LEAN=1: the bare split (leanSplit/) walks beside B0 too: the design's floor on this
   * machine (BENCHMARKS.md, "The split's floor"); BENCH_LEAN_REDIS picks its Redis modes. A
   * smoke run walks it too (BENCH_LEAN=0: not), so a change the bare front no longer matches
   * (the rate-limit script's arguments, 2026-11-27 to 2026-12-03) fails the test command.
   */
  leanSplit: process.env.BENCH_LEAN === '1' || (SMOKE && process.env.BENCH_LEAN !== '0'),
  /**
   * BENCH_WALK_ARMS: which of the walk's other arms run beside B0 and REST, comma-separated
   * (MCP, lean-ioredis, ...); all by default, none with `-`. For a profile of the REST path
   * alone: BENCH_PROFILE=1 BENCH_WALK_ONLY=1 BENCH_WALK_ARMS=- npm run bench.
   */
  walkArms: (process.env.BENCH_WALK_ARMS ?? '').split(',').filter(Boolean),
  /**
   * BENCH_VARIANTS: extra systems as walk arms, for an A/B of a change within one run:
   * `name=gatewayMain[+recordsMain][@gateway's node flags[|records' node flags]];...` (built
   * entry points, e.g. a copy of gateway/dist edited by hand; flags given replace that process's
   * heap flags). Each variant gets its own gateway (and records, when given, on the same
   * database), walks the system's request lists in the same rounds, and is reported beside
   * REST as CPU per page of each of its processes.
   */
  variants: (process.env.BENCH_VARIANTS ?? '')
    .split(';')
    .filter(Boolean)
    .map((v) => {
      const [name, rest] = v.split(/=(.*)/s);
      const [mains, flags] = rest.split('@');
      const [gateway, records] = mains.split('+');
      // flags not given keep the system's own (HEAP_FLAGS, RECORDS_HEAP_FLAGS)
      const [gatewayFlags, recordsFlags] = flags?.split('|') ?? [];
      const list = (f) => (f ? f.split(' ').filter(Boolean) : undefined);
      return {
        name,
        gateway,
        records,
        gatewayFlags: list(gatewayFlags),
        recordsFlags: list(recordsFlags),
      };
    }),
  /** BENCH_MEMORY_TRACE=1: each measured process logs its memory once a second (logs/<name>.memory.jsonl). */
  memoryTrace: process.env.BENCH_MEMORY_TRACE === '1',
  /** BENCH_NODE_FLAGS: extra node flags of every measured process (e.g. --perf-basic-prof). */
  nodeFlags: (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
  /** The whole run is aborted (and cleaned up) after this long. */
  watchdogSeconds: intEnv('BENCH_WATCHDOG_SECONDS', SMOKE ? 900 : 2_400),
};

const startedAt = Date.now();
export const elapsed = () => `${((Date.now() - startedAt) / 1000).toFixed(1)}s`;
export const elapsedSeconds = () => (Date.now() - startedAt) / 1000;
export const say = (msg) => console.log(`[bench ${elapsed().padStart(6)}] ${msg}`);
export const round = (x, digits = 2) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : x);

/**
 * The peer the webhook scenarios compare ours with: W0 (issue 46), or `B`, another build of
 * ours (BENCH_PEER_WEBHOOKS, BENCH_PEER_WEBHOOKS_ENV) for an A/B within one run. B is ours in
 * everything but its main and those settings.
 */
export const PEER =
  SETTINGS.peerWebhooksMain ||
  Object.keys(SETTINGS.peerWebhooksEnv).length > 0 ||
  SETTINGS.peerWebhooksFlags !== undefined
    ? 'B'
    : 'W0';
