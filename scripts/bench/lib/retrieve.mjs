// R1 (issue 44): GET /api/v1/{resource}/{id}, one record by id, REST vs B0 in the same
// round-robin rounds. Each connection asks for the load brand's submissions by id in turn
// (1,000 distinct records, so no answer is a re-read of the last), as a reconciliation job
// looking records up would. B0 answers the same route as a brand's engineer would write it
// (baselineMonolith.mjs: express, the cached key, one query by brand and id with pg); its
// answer must be the system's, byte for byte, before any load.
// The same scenario measures the two 404s beside it (another brand's id, an id that exists
// nowhere), interleaved: their p50 and p99 must not separate (no existence oracle by time).
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { runArms } from './arms.mjs';
import { cpuSources } from './pages.mjs';
import { getJson } from './load.mjs';
import { SETTINGS, say } from './settings.mjs';

/** The ids of a brand's submissions (the load brand's 1,000, newest first). */
async function submissionIds(dbUrl, brandId) {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      'select id from records.submissions where brand_id = $1 order by created_at desc, id desc',
      [brandId],
    );
    return rows.map((r) => r.id);
  } finally {
    await client.end();
  }
}

/** An autocannon request that asks for `ids` in turn, one per request, with `secret`. */
function byIdInTurn(secret, ids) {
  let next = 0;
  return {
    method: 'GET',
    path: `/api/v1/submissions/${ids[0]}`,
    headers: { authorization: `Bearer ${secret}` },
    setupRequest: (req) => {
      const id = ids[next];
      next = (next + 1) % ids.length;
      return { ...req, path: `/api/v1/submissions/${id}` };
    },
  };
}

/** A random id of the submissions' shape that no brand has. */
const nowhereId = () =>
  `sub_${randomBytes(15).toString('base64url').replace(/[-_]/g, 'x').slice(0, 20)}`;

/** The same bytes from B0 and the system for a sample of ids, before any load. */
async function checkSameRecords(ctx, ids) {
  for (const id of ids.slice(0, 20)) {
    const path = `/api/v1/submissions/${id}`;
    const sys = await getJson(`${ctx.gatewayUrl}${path}`, ctx.loadBrand.secret);
    const base = await getJson(`${ctx.b0Url}${path}`, ctx.loadBrand.secret);
    if (sys.status !== 200 || sys.json.id !== id)
      throw new Error(`R1: the system's record ${id}: ${sys.status} ${sys.body.slice(0, 300)}`);
    if (base.status !== 200 || base.body !== sys.body)
      throw new Error(`R1: B0's record differs from the system's: ${base.body.slice(0, 300)}`);
  }
}

/** R1: { arms, roundRatios, cpuMsPerRequest } of B0, REST, and the two 404 arms. */
export async function runRetrieveScenario(ctx) {
  const ids = await submissionIds(ctx.dbUrl, ctx.loadBrand.brandId);
  // the deep brand's submissions: another brand's ids, as the load brand's key asks for them
  const foreign = (await submissionIds(ctx.dbUrl, ctx.deepBrand.brandId)).slice(0, 1_000);
  if (ids.length < 100 || foreign.length < 100)
    throw new Error(`R1: too few submissions (${ids.length}, ${foreign.length})`);
  await checkSameRecords(ctx, ids);
  say(`R1: ${ids.length} records by id, REST vs B0; 404s: another brand's id vs none`);
  const secret = ctx.loadBrand.secret;
  const nowhere = Array.from({ length: 1_000 }, nowhereId);
  return runArms(
    'R1',
    [
      { name: 'B0', url: ctx.b0Url, request: byIdInTurn(secret, ids), cpu: cpuSources(ctx, 'B0') },
      {
        name: 'REST',
        url: ctx.gatewayUrl,
        request: byIdInTurn(secret, ids),
        cpu: cpuSources(ctx, 'system'),
      },
      // the two 404s only in a full run's rounds: a smoke run checks their path once
      ...(SETTINGS.smoke
        ? []
        : [
            {
              name: '404 foreign',
              url: ctx.gatewayUrl,
              request: byIdInTurn(secret, foreign),
              expect: [404],
              cpu: cpuSources(ctx, 'system'),
            },
            {
              name: '404 nowhere',
              url: ctx.gatewayUrl,
              request: byIdInTurn(secret, nowhere),
              expect: [404],
              cpu: cpuSources(ctx, 'system'),
            },
          ]),
    ],
    ctx,
  );
}
