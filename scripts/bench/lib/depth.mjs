// S4: the page 19,000 rows deep by cursor against the first page, through the gateway
// (sequential, interleaved) and on the records service under load (gRPC), plus the exact
// rows PostgreSQL reads per row returned (EXPLAIN ANALYZE of the service's own query).
import { createRequire } from 'node:module';
import path from 'node:path';
import { rowsReadPerRow } from './infra.mjs';
import { grpcDepthLoad, interleavedLatency, percentile } from './load.mjs';
import { cursorAtDepth } from './seed.mjs';
import { listPath } from './pages.mjs';
import { CURSOR_SECRET, INTERNAL_TOKEN, REPO_ROOT, SETTINGS, say } from './settings.mjs';

export async function runDepthScenario(ctx) {
  const { recordsAddress, deepBrand, gatewayUrl, dbUrl, work } = ctx;
  const walk = await cursorAtDepth(
    recordsAddress,
    deepBrand.brandId,
    SETTINGS.depth,
    SETTINGS.pageSize,
    INTERNAL_TOKEN,
  );
  work.pagesServed += walk.pages;
  work.rowsReturned += walk.pages * SETTINGS.pageSize;
  say(`S4: followed ${walk.pages} cursors to row ${walk.rows}`);
  const deepUrl = `${gatewayUrl}${listPath(SETTINGS.pageSize)}&cursor=${encodeURIComponent(walk.cursor)}`;
  const gatewayDepth = await interleavedLatency({
    urls: { first: `${gatewayUrl}${listPath(SETTINGS.pageSize)}`, deep: deepUrl },
    secret: deepBrand.secret,
    warmup: SETTINGS.depthWarmupPairs,
    pairs: SETTINGS.depthPairs,
    expectCount: SETTINGS.pageSize,
  });
  const pairs = 2 * (SETTINGS.depthWarmupPairs + SETTINGS.depthPairs);
  work.pagesServed += pairs;
  work.rowsReturned += pairs * SETTINGS.pageSize;
  const depthGateway = {
    firstP50: percentile(gatewayDepth.first, 50),
    deepP50: percentile(gatewayDepth.deep, 50),
    firstP90: percentile(gatewayDepth.first, 90),
    deepP90: percentile(gatewayDepth.deep, 90),
    pairs: SETTINGS.depthPairs,
  };
  say(
    `S4 via gateway (sequential, interleaved): first page p50 ${depthGateway.firstP50.toFixed(2)} ms, page at row ${walk.rows} p50 ${depthGateway.deepP50.toFixed(2)} ms`,
  );
  const grpcLoad = (slices, sliceMs) =>
    grpcDepthLoad({
      recordsAddress,
      token: INTERNAL_TOKEN,
      brandId: deepBrand.brandId,
      deepCursor: walk.cursor,
      limit: SETTINGS.pageSize,
      concurrency: SETTINGS.grpcConcurrency,
      slices,
      sliceMs,
    });
  const grpcWarm = await grpcLoad(2, 250);
  const grpcArms = await grpcLoad(SETTINGS.grpcSlices, SETTINGS.grpcSliceMs);
  for (const arms of [grpcWarm, grpcArms]) {
    const pages = arms.first.latencies.length + arms.deep.latencies.length;
    work.pagesServed += pages;
    work.rowsReturned += pages * SETTINGS.pageSize;
  }
  const depthGrpc = {
    firstP50: percentile(grpcArms.first.latencies, 50),
    deepP50: percentile(grpcArms.deep.latencies, 50),
    firstRps: grpcArms.first.latencies.length / grpcArms.first.seconds,
    deepRps: grpcArms.deep.latencies.length / grpcArms.deep.seconds,
  };
  say(
    `S4 on records (gRPC ListRecordsPage, ${SETTINGS.grpcConcurrency} callers, A/B slices): first page p50 ${depthGrpc.firstP50.toFixed(2)} ms, deep p50 ${depthGrpc.deepP50.toFixed(2)} ms`,
  );

  // exact rows read per row returned, from EXPLAIN ANALYZE of the records service's own
  // page query (its built pageQuery and CursorCodec), for the first and the deep page
  const require = createRequire(import.meta.url);
  const { pageQuery } = require(
    path.join(REPO_ROOT, 'services/records/dist/records/recordRepo.js'),
  );
  const { CursorCodec } = require(path.join(REPO_ROOT, 'services/records/dist/records/cursor.js'));
  const binding = { brandId: deepBrand.brandId, resource: 'submissions' };
  const after = new CursorCodec(CURSOR_SECRET).decode(binding, walk.cursor);
  const rowsRead = {};
  for (const [arm, position] of [
    ['first', undefined],
    ['deep', after],
  ]) {
    const q = pageQuery({
      ...binding,
      limit: SETTINGS.pageSize,
      since: undefined,
      after: position,
    });
    rowsRead[arm] = await rowsReadPerRow(dbUrl, q.sql, q.params);
  }
  say(
    `S4 rows read per row returned (EXPLAIN ANALYZE): first page ${rowsRead.first.read}/${rowsRead.first.returned}, deep page ${rowsRead.deep.read}/${rowsRead.deep.returned}`,
  );
  return { depthGateway, depthGrpc, rowsRead };
}
