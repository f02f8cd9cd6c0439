// S1f and S2: the first page of one brand, re-read, side by side with B0 and the ceiling.
// S1f GET a 50-row first page (B0, REST, and a bare node:http server answering the same
// bytes, in the same rounds: issue 10's S1, which the lean paths answer); S2 the same at
// limit=200 (B0, REST). S1 and S3 proper are the walk (walk.mjs).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { cpuOfBackends, cpuOfPid, runArms } from './arms.mjs';
import { getJson } from './load.mjs';
import { spawnHelper } from './stack.mjs';
import { MAINS, OUT_DIR, SETTINGS } from './settings.mjs';

export const listPath = (limit) => `/api/v1/submissions?limit=${limit}`;
/** An autocannon GET of the load brand's page. */
export const getPage = (secret, limit) => ({
  method: 'GET',
  path: listPath(limit),
  headers: { authorization: `Bearer ${secret}` },
});

/**
 * Checks one page of each size before any load (B0's page must be the system's, byte for
 * byte in its data) and starts the ceiling on the system's page bytes. Returns the body
 * sizes and the ceiling's URL.
 */
async function checkPages(ctx) {
  const { gatewayUrl, b0Url, loadBrand, work } = ctx;
  const samples = {};
  for (const limit of [SETTINGS.pageSize, SETTINGS.bigPageSize]) {
    const sys = await getJson(`${gatewayUrl}${listPath(limit)}`, loadBrand.secret);
    const base = await getJson(`${b0Url}${listPath(limit)}`, loadBrand.secret);
    work.pagesServed += 2;
    work.rowsReturned += 2 * limit;
    if (sys.status !== 200 || sys.json.count !== limit || !sys.json.next_cursor)
      throw new Error(`the system's page is not full: ${sys.status} ${sys.body.slice(0, 300)}`);
    const sameData = JSON.stringify(sys.json.data) === JSON.stringify(base.json.data);
    if (base.status !== 200 || !sameData)
      throw new Error(`B0's page differs from the system's: ${base.body.slice(0, 300)}`);
    samples[limit] = sys.body;
  }
  const pageBodyFile = path.join(OUT_DIR, 'baseline-body.json');
  writeFileSync(pageBodyFile, samples[SETTINGS.pageSize]);
  const ceiling = await spawnHelper('ceiling', MAINS.ceiling, {}, { args: [pageBodyFile] });
  return {
    ceiling,
    sizes: {
      restBodyBytes: Buffer.byteLength(samples[SETTINGS.pageSize]),
      rest200BodyBytes: Buffer.byteLength(samples[SETTINGS.bigPageSize]),
    },
  };
}

/** The processes behind an arm: B0 and its backends, or gateway + records + theirs. */
export function cpuSources(ctx, kind) {
  if (kind === 'B0')
    return async () => ({
      b0: cpuOfPid(ctx.b0.pid),
      postgres: await cpuOfBackends(ctx.dbName, 'bench-b0'),
    });
  // read when the arm starts: a scenario may have replaced ctx.records
  return () => systemCpu(ctx.dbName, ctx.gateway, ctx.records)();
}

/** A system's CPU sources: one gateway, one records process and records' backends. */
export function systemCpu(dbName, gateway, records) {
  return async () => ({
    gateway: cpuOfPid(gateway.pid),
    records: cpuOfPid(records.pid),
    postgres: await cpuOfBackends(dbName, 'records'),
  });
}

/** S1f, then S2. Returns { sizes, s1f, s2 }. */
export async function runPageScenarios(ctx) {
  const { ceiling, sizes } = await checkPages(ctx);
  const { gatewayUrl, b0Url, loadBrand } = ctx;
  const page = SETTINGS.pageSize;
  const big = SETTINGS.bigPageSize;
  const b0 = cpuSources(ctx, 'B0');
  const system = cpuSources(ctx, 'system');
  const request = (limit) => getPage(loadBrand.secret, limit);
  const s1f = await runArms(
    'S1f',
    [
      { name: 'B0', url: b0Url, request: request(page), rows: page, cpu: b0 },
      { name: 'REST', url: gatewayUrl, request: request(page), rows: page, cpu: system },
      {
        name: 'ceiling',
        url: `http://127.0.0.1:${ceiling.port}`,
        request: request(page),
        cpu: async () => ({ ceiling: cpuOfPid(ceiling.pid) }),
      },
    ],
    ctx,
  );
  await ceiling.stop();
  ctx.memory.warm = await ctx.markMemory('S1, S1f');
  const s2 = await runArms(
    'S2',
    [
      { name: 'B0', url: b0Url, request: request(big), rows: big, cpu: b0 },
      { name: 'REST', url: gatewayUrl, request: request(big), rows: big, cpu: system },
    ],
    ctx,
  );
  await ctx.markMemory('S2');
  return { sizes, s1f, s2 };
}
