// "A request's cost does not depend on how much other brands store" (issue 10): a brand
// with 10 submissions is served while no other brand has rows ("alone"), then after one
// INSERT ... SELECT generate_series gave another brand 1,000,000 submissions ("beside
// big"), then alone again after those rows are deleted: A B A, so a drift of the shared
// machine's load over the minute this takes shows as a difference between the two "alone"
// phases instead of hiding in the ratio. Same gateway, records and database; p50 and CPU
// per request (gateway + records + PostgreSQL) of "beside big" against the mean of the two
// "alone" phases. Each phase starts from a VACUUM (ANALYZE)d table, as autovacuum leaves
// it. Plus the exact rows PostgreSQL reads for the small brand's page beside the big one
// (EXPLAIN ANALYZE of the service's own query), which noise cannot move.
import { createRequire } from 'node:module';
import path from 'node:path';
import pg from 'pg';
import { runArms } from './arms.mjs';
import { rowsReadPerRow } from './infra.mjs';
import { cpuSources, getPage } from './pages.mjs';
import { createEnterpriseBrands, insertSubmissions } from './seed.mjs';
import { ADMIN_TOKEN, REPO_ROOT, SETTINGS, round, say } from './settings.mjs';

/**
 * VACUUM (ANALYZE) of the submissions table before each phase: a settled table, as
 * autovacuum leaves it, and no autovacuum of a million fresh rows during a measurement.
 */
async function vacuumSubmissions(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('vacuum (analyze) records.submissions');
  } finally {
    await client.end();
  }
}

export async function runOtherBrandsScenario(ctx) {
  const [small, big] = await createEnterpriseBrands(ctx.recordsAddress, ADMIN_TOKEN, 2, {
    namePrefix: 'Isolation Brand',
  });
  await insertSubmissions(ctx.dbUrl, [small.brandId], SETTINGS.otherBrandSmallRows);
  const arm = (name) => ({
    name,
    url: ctx.gatewayUrl,
    request: getPage(small.secret, SETTINGS.pageSize),
    cpu: cpuSources(ctx, 'system'),
  });
  const figures = (r, name) => {
    const cpu = r.cpuMsPerRequest[name];
    return {
      rps: round(r.arms[name].rps, 1),
      p50: r.arms[name].p50,
      p99: r.arms[name].p99,
      cpuMs: round(
        Object.values(cpu).reduce((a, b) => a + b, 0),
        4,
      ),
      cpu,
    };
  };
  await vacuumSubmissions(ctx.dbUrl);
  const alone = figures(await runArms('brands: small alone', [arm('alone')], ctx), 'alone');
  let started = Date.now();
  await insertSubmissions(ctx.dbUrl, [big.brandId], SETTINGS.otherBrandRows);
  await vacuumSubmissions(ctx.dbUrl);
  say(
    `brands: another brand now holds ${SETTINGS.otherBrandRows} submissions (inserted, vacuumed and analysed in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  const withBig = figures(
    await runArms('brands: beside big', [arm('beside big')], ctx),
    'beside big',
  );
  const rowsRead = await smallPageRowsRead(ctx.dbUrl, small.brandId);
  started = Date.now();
  await deleteBrandSubmissions(ctx.dbUrl, big.brandId);
  say(
    `brands: the big brand's rows deleted and vacuumed in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  const aloneAgain = figures(
    await runArms('brands: small alone again', [arm('alone again')], ctx),
    'alone again',
  );
  const mean = (k) => (alone[k] + aloneAgain[k]) / 2;
  ctx.notes.push(
    `brands: the ${SETTINGS.otherBrandSmallRows}-row brand's page reads ${rowsRead.read} rows for ${rowsRead.returned} returned beside the ${SETTINGS.otherBrandRows}-row brand (EXPLAIN ANALYZE); p50 alone ${alone.p50} ms, beside ${withBig.p50} ms, alone again ${aloneAgain.p50} ms; CPU/request ${alone.cpuMs}, ${withBig.cpuMs}, ${aloneAgain.cpuMs} ms`,
  );
  return {
    bigRows: SETTINGS.otherBrandRows,
    alone,
    withBig,
    aloneAgain,
    aloneMean: { p50: mean('p50'), cpuMs: round(mean('cpuMs'), 4) },
    rowsRead,
  };
}

/** Rows PostgreSQL reads for the small brand's first page (the service's own query). */
async function smallPageRowsRead(dbUrl, brandId) {
  const require = createRequire(import.meta.url);
  const { pageQuery } = require(
    path.join(REPO_ROOT, 'services/records/dist/records/recordRepo.js'),
  );
  const q = pageQuery({
    brandId,
    resource: 'submissions',
    limit: SETTINGS.pageSize,
    since: undefined,
    after: undefined,
  });
  return rowsReadPerRow(dbUrl, q.sql, q.params);
}

/** Deletes a brand's submissions (and its campaign), then VACUUM (ANALYZE). */
async function deleteBrandSubmissions(url, brandId) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('delete from records.submissions where brand_id = $1', [brandId]);
    await client.query('delete from records.campaigns where brand_id = $1', [brandId]);
  } finally {
    await client.end();
  }
  await vacuumSubmissions(url);
}
