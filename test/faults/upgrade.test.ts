// Issue 60: an upgrade as it happens. The migration Job runs before the new pods, so the
// previous release's pods serve against the new schema for the whole rollout; migrations must
// expand and contract (docs/internals.md "Migrations: expand, then contract"). The previous
// release (previousRelease.ts: the commit before the newest migration, built in a temporary git
// worktree) runs the whole system on its own schema under the suite's traffic; this tree's
// migrations are applied while it serves: no error answered, no event or plan lost. A planted
// incompatible migration (a column the release reads, renamed) under the same traffic must be
// caught, or the check would pass anything.
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPool, runMigrations } from '@brand/shared/db';
import { createLogger } from '@brand/shared/logger';
import { REPO_ROOT, runMigrateScript } from '@brand/testkit';
import { startSingleInfra, type SingleInfra } from './infra';
import { buildPreviousRelease, type PreviousRelease } from './previousRelease';
import { underTraffic } from './underTraffic';
import type { FaultResult } from './verdict';
import { startWorldOn, type World } from './world';

const WARM_MS = 3_000;
const AFTER_MS = 10_000;
const PLANTED_AFTER_MS = 4_000;
const SCHEMAS = ['records', 'plans', 'webhooks'] as const;

/**
 * Building the previous release takes over a minute of two cores' time: `npm run test:faults`
 * runs this file; `npm test`'s short suite holds every migration to the static rule of
 * packages/shared/src/db/migrationRules.ts instead.
 */
const runs = process.env.FAULTS !== 'short';
const describeIfRuns = runs ? describe : describe.skip;

let release: PreviousRelease;
let world: World<SingleInfra>;

beforeAll(async () => {
  if (!runs) return;
  const started = Date.now();
  release = await buildPreviousRelease();
  const built = Date.now();
  world = await startWorldOn(startSingleInfra, { release: release.root });
  process.stdout.write(
    `\nThe previous release ${release.commit.slice(0, 10)}: built in ${((built - started) / 1000).toFixed(1)} s, ` +
      `its world up in ${((Date.now() - built) / 1000).toFixed(1)} s\n`,
  );
}, 600_000);

afterAll(async () => {
  await world?.close();
  await release?.remove();
}, 120_000);

/** Every answer an error of any kind (5xx, 503 included, or none at all) is a failed upgrade. */
function upgradeProblems(r: FaultResult): string[] {
  const problems: string[] = [];
  if (r.bad5xx + r.unavailable > 0)
    problems.push(`${r.bad5xx + r.unavailable} requests answered 5xx`);
  if (r.unanswered > 0) problems.push(`${r.unanswered} requests unanswered`);
  if (r.lostEvents > 0) problems.push(`${r.lostEvents} events lost`);
  if (r.lostPlans > 0) problems.push(`${r.lostPlans} plans lost`);
  if (r.unverified > 0) problems.push(`${r.unverified} deliveries unverified`);
  return problems;
}

/** The suite's traffic while `migrate` runs, kept `afterMs` past it, and its verdict. */
const underMigration = (name: string, migrate: () => Promise<void>, afterMs = AFTER_MS) =>
  underTraffic(world, {
    name,
    warmMs: WARM_MS,
    afterMs,
    inject: async () => {
      await migrate();
      return Date.now();
    },
  });

async function appliedMigrations(): Promise<number> {
  let n = 0;
  for (const schema of SCHEMAS)
    n += Number(
      (
        await world.pool.query<{ n: string }>(
          `select count(*) as n from ${schema}.schema_migrations`,
        )
      ).rows[0]!.n,
    );
  return n;
}

describeIfRuns('this tree’s migrations, applied under the previous release while it serves', () => {
  let result: FaultResult;
  let before: number;
  let after: number;

  beforeAll(async () => {
    before = await appliedMigrations();
    result = await underMigration('this tree’s migrations', async () => {
      // as the Job does: each schema's migrate.js of the new release, records, plans, webhooks
      for (const service of SCHEMAS) await runMigrateScript(service, world.databaseUrl);
    });
    after = await appliedMigrations();
    process.stdout.write(
      `\nUpgrade from ${release.commit.slice(0, 10)}: ${after - before} migrations applied under traffic, ` +
        `${result.requests} requests, ${result.bad5xx + result.unavailable} 5xx, ` +
        `${result.lostEvents} lost events, ${result.lostPlans} lost plans\n`,
    );
  }, 300_000);

  it('applies at least one migration the release did not have', () =>
    expect(after).toBeGreaterThan(before));
  it('answers no error and loses no event or plan', () =>
    expect(upgradeProblems(result)).toEqual([]));
  it('repeats only event ids of real changes', () => expect(result.strangers).toBe(0));
});

describeIfRuns('a planted incompatible migration', () => {
  let result: FaultResult;
  let dir: string;

  beforeAll(async () => {
    // this tree's records migrations and a contracting one: a column the release reads, renamed
    dir = mkdtempSync(path.join(tmpdir(), 'brand-planted-migration-'));
    const records = path.join(REPO_ROOT, 'services/records/migrations');
    for (const file of readdirSync(records))
      copyFileSync(path.join(records, file), path.join(dir, file));
    writeFileSync(
      path.join(dir, '9999_planted_rename.sql'),
      'alter table campaigns rename column title to name;\n',
    );
    const log = createLogger({ service: 'planted-migration', level: 'warn' });
    const pool = createPool({
      connectionString: world.databaseUrl,
      schema: 'records',
      max: 1,
      connectTimeoutMs: 10_000,
      statementTimeoutMs: 60_000,
      applicationName: 'planted-migration',
      log,
    });
    try {
      // a shorter run: the release fails at its next page
      result = await underMigration(
        'planted incompatible migration',
        async () => {
          await runMigrations(pool, { schema: 'records', dir, log });
        },
        PLANTED_AFTER_MS,
      );
      process.stdout.write(
        `Planted incompatible migration: ${upgradeProblems(result).join(', ') || 'nothing caught'}\n`,
      );
    } finally {
      await pool.end();
    }
  }, 300_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is caught: the check reports the previous release failing', () =>
    expect(upgradeProblems(result)).not.toEqual([]));
});
