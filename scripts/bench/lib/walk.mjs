// S1 and S3, the walk (issue 25): what a high-volume brand's sync job does all day, following
// next_cursor through every resource, across many brands. SETTINGS.walkBrands Enterprise
// brands are seeded with demo records at SETTINGS.walkScale (SeedDemoData: all six
// resources); then every server walks every chain once, before any load, minting its own
// cursors: the system through REST (S1) and through MCP tools/call (S3), B0 with its own
// signed cursors. Every page of B0's and MCP's walks must hold exactly the system's REST
// page's records. The walk (every page of every chain, brand after brand) is then cut into
// as many equal consecutive parts as there are connections: each connection replays its own
// distinct pages in walk order (wrk, one thread per connection: wrk.mjs), so no two
// connections ask for the same page and every page is served equally often. B0, REST and MCP
// take round-robin slices of the same rounds; pages/s, p50/p99 and CPU per page per process.
import { createHash } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { cpuOfBackends, cpuOfPid, runArms } from './arms.mjs';
import { redisUrl } from './infra.mjs';
import { gatewayEnv, recordsEnv, spawnMeasured } from './stack.mjs';
import { cpuSources, systemCpu } from './pages.mjs';
import { createEnterpriseBrands, pooled, seedDemoData } from './seed.mjs';
import {
  CURSOR_SECRET,
  HEAP_FLAGS,
  OUT_DIR,
  RECORDS_HEAP_FLAGS,
  SETTINGS,
  say,
} from './settings.mjs';
import { WRK, ensureWrk, writeRequestLists } from './wrk.mjs';

const RESOURCES = ['campaigns', 'submissions', 'payouts', 'deposits', 'conversions', 'links'];
const WALK_DIR = path.join(OUT_DIR, 'walk');
/**
 * Chains walked at once per server while precomputing: a chain is sequential by nature, so
 * the precomputation's speed is this many pages in flight per server (the three servers'
 * walks run at the same time).
 */
const CHAIN_CONCURRENCY = 16;

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const mcpBody = (resource, cursor) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: `list_${resource}`,
      arguments: { limit: SETTINGS.pageSize, ...(cursor ? { cursor } : {}) },
    },
  });
const restPath = (resource, cursor) =>
  `/api/v1/${resource}?limit=${SETTINGS.pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
const digest = (data) => createHash('sha256').update(JSON.stringify(data)).digest('hex');

/**
 * The walk's brands: Enterprise brands with a key each, filled by SeedDemoData. Runs with
 * the seeding records process, before the measured ones start.
 */
export async function seedWalkBrands(recordsAddress, adminToken) {
  const brands = await createEnterpriseBrands(recordsAddress, adminToken, SETTINGS.walkBrands, {
    namePrefix: 'Walk Brand',
  });
  const created = await seedDemoData(
    recordsAddress,
    adminToken,
    brands.map((b) => b.brandId),
    SETTINGS.walkScale,
  );
  const total = created.reduce((sum, c) => sum + Object.values(c).reduce((a, b) => a + b, 0), 0);
  return { brands, records: total };
}

/**
 * One answer (node:http on a keep-alive agent: fetch cost the precomputation several times
 * the CPU, taken from the servers it waits for): { status, text, retryAfter }.
 */
function send(agent, baseUrl, req) {
  return new Promise((resolve, reject) => {
    const r = http.request(
      `${baseUrl}${req.path}`,
      { agent, method: req.method, headers: req.headers },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            text: Buffer.concat(chunks).toString('utf8'),
            retryAfter: Number(res.headers['retry-after'] ?? 1),
          }),
        );
      },
    );
    r.on('error', reject);
    r.setTimeout(10_000, () => r.destroy(new Error(`${req.path} timed out`)));
    r.end(req.body);
  });
}

/**
 * One page, parsed, and its size. A 503 (the system told to retry: on a machine this busy a
 * page can miss its deadline inside the system) is retried after its Retry-After, twice;
 * anything else that is not a 200 stops the run. An MCP tool error is a 200 whose result
 * says isError: WALKERS.mcp.page retries it the same way.
 */
async function fetchPage(agent, baseUrl, req, walker) {
  for (let attempt = 1; ; attempt++) {
    const { status, text, retryAfter } = await send(agent, baseUrl, req);
    const json = status === 200 ? JSON.parse(text) : undefined;
    const retry = status === 503 || (json !== undefined && walker.unavailable(json));
    if (retry && attempt < 3) {
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      continue;
    }
    if (status !== 200)
      throw new Error(`${req.method} ${req.path}: ${status} ${text.slice(0, 300)}`);
    return { page: walker.page(json), bytes: Buffer.byteLength(text) };
  }
}

/** How each server is asked for a page, and where its page's records are in the answer. */
const WALKERS = {
  rest: {
    request: (brand, resource, cursor) => ({
      method: 'GET',
      path: restPath(resource, cursor),
      headers: { authorization: `Bearer ${brand.secret}` },
    }),
    page: (json) => json,
    unavailable: () => false,
  },
  mcp: {
    request: (brand, resource, cursor) => ({
      method: 'POST',
      path: '/api/mcp',
      body: mcpBody(resource, cursor),
      headers: { authorization: `Bearer ${brand.secret}`, ...MCP_HEADERS },
    }),
    page: (json) => {
      const result = json.result;
      if (
        !result ||
        result.isError ||
        result.content?.[0]?.text !== JSON.stringify(result.structuredContent)
      )
        throw new Error(`not a list tool result: ${JSON.stringify(json).slice(0, 300)}`);
      return result.structuredContent;
    },
    unavailable: (json) =>
      json.result?.isError === true &&
      json.result.content?.[0]?.text?.includes('"code":"service_unavailable"'),
  },
};

/**
 * Every chain (brand x resource, brand after brand) walked once on one server, following
 * its own next_cursor to the end: [{ request, digest, count, bytes }] in walk order.
 */
async function walkChains(baseUrl, brands, walker) {
  const chains = brands.flatMap((brand) => RESOURCES.map((resource) => ({ brand, resource })));
  const agent = new http.Agent({ keepAlive: true, maxSockets: CHAIN_CONCURRENCY });
  const walked = await pooled(chains.length, CHAIN_CONCURRENCY, async (i) => {
    const { brand, resource } = chains[i];
    const pages = [];
    let cursor;
    do {
      const request = walker.request(brand, resource, cursor);
      const { page, bytes } = await fetchPage(agent, baseUrl, request, walker);
      if (page.resource !== resource || page.count !== page.data.length)
        throw new Error(`${request.path}: not a page of ${resource}`);
      pages.push({ request, digest: digest(page.data), count: page.count, bytes });
      cursor = page.next_cursor;
      if (pages.length > 100_000) throw new Error(`${resource}: the walk does not end`);
    } while (cursor);
    return pages;
  });
  agent.destroy();
  return walked.flat();
}

/** Fails unless `other`'s walk holds exactly the records of `rest`'s, page by page. */
function checkSameRecords(name, rest, other) {
  if (other.length !== rest.length)
    throw new Error(`${name}'s walk has ${other.length} pages, the system's ${rest.length}`);
  other.forEach((page, i) => {
    if (page.digest !== rest[i].digest)
      throw new Error(`${name}'s page ${i} (${page.request.path}) differs from the system's`);
  });
}

/** The walk cut into `connections` equal consecutive parts (one per connection). */
function split(pages, connections) {
  if (pages.length < connections)
    throw new Error(`the walk has ${pages.length} pages, fewer than ${connections} connections`);
  return Array.from({ length: connections }, (_, c) =>
    pages
      .slice(
        Math.floor((c * pages.length) / connections),
        Math.floor(((c + 1) * pages.length) / connections),
      )
      .map((p) => p.request),
  );
}

/** S1 (REST) and S3 (MCP) on the walk, with B0 in the same rounds. */
export async function runWalkScenario(ctx) {
  const { gatewayUrl, b0Url, walkBrands, work } = ctx;
  ensureWrk();
  const started = Date.now();
  const [rest, b0, mcp] = await Promise.all([
    walkChains(gatewayUrl, walkBrands, WALKERS.rest),
    walkChains(b0Url, walkBrands, WALKERS.rest),
    walkChains(gatewayUrl, walkBrands, WALKERS.mcp),
  ]);
  const walks = { rest, b0, mcp };
  checkSameRecords('B0', walks.rest, walks.b0);
  checkSameRecords('MCP', walks.rest, walks.mcp);
  const pages = walks.rest.length;
  const rows = walks.rest.reduce((a, p) => a + p.count, 0);
  const bytes = (walk) => walk.reduce((a, p) => a + p.bytes, 0) / walk.length;
  work.pagesServed += 3 * pages;
  work.rowsReturned += 3 * rows;
  say(
    `S1 walk: ${walkBrands.length} brands x ${RESOURCES.length} resources, ${pages} pages (${rows} records) walked once on each server in ${((Date.now() - started) / 1000).toFixed(1)} s; B0's and MCP's pages hold the system's records`,
  );
  const { connections } = SETTINGS;
  const dirs = {};
  for (const [name, walk] of Object.entries(walks)) {
    dirs[name] = path.join(WALK_DIR, name);
    writeRequestLists(dirs[name], split(walk, connections));
  }
  const system = cpuSources(ctx, 'system');
  const perPage = rows / pages;
  const arm = (name, url, dir, cpu) => ({ name, url, request: dir, tool: WRK, rows: perPage, cpu });
  const lean = SETTINGS.leanSplit ? await startLeanSplit(ctx) : [];
  const variants = await startVariants(ctx);
  const arms = [
    arm('B0', b0Url, dirs.b0, cpuSources(ctx, 'B0')),
    ...lean.map((l) => arm(l.name, l.url, dirs.b0, l.cpu)),
    arm('REST', gatewayUrl, dirs.rest, system),
    ...variants.map((v) => arm(v.name, v.url, dirs.rest, v.cpu)),
    arm('MCP', gatewayUrl, dirs.mcp, system),
  ];
  const picked = SETTINGS.walkArms;
  const result = await runArms(
    'S1/S3 walk',
    arms.filter(
      (a) =>
        ['B0', 'REST'].includes(a.name) ||
        variants.some((v) => v.name === a.name) ||
        !picked.length ||
        picked.includes(a.name),
    ),
    ctx,
  );
  return {
    ...result,
    walk: {
      brands: walkBrands.length,
      resources: RESOURCES.length,
      pages,
      rows,
      pagesPerConnection: pages / connections,
      meanBodyBytes: { REST: bytes(walks.rest), B0: bytes(walks.b0), MCP: bytes(walks.mcp) },
    },
  };
}

/**
 * BENCH_LEAN=1: the bare split (leanSplit/front.mjs and back.mjs), what the design's two
 * processes cost with nothing but the page on them, as arms beside B0 on B0's request lists:
 * one front per ioredis mode of BENCH_LEAN_REDIS (comma-separated: ioredis, ioredis-auto,
 * none; default ioredis), one back shared by them (each arm's CPU is counted in its own slices).
 */
async function startLeanSplit(ctx) {
  const dir = new URL('../leanSplit/', import.meta.url).pathname;
  const env = {
    DATABASE_URL: ctx.dbUrl,
    CURSOR_SECRET,
    REDIS_URL: redisUrl(),
    REDIS_KEY_PREFIX: ctx.redisPrefix,
  };
  const back = await spawnMeasured('lean-back', path.join(dir, 'back.mjs'), env);
  const arms = [];
  for (const mode of (process.env.BENCH_LEAN_REDIS || 'ioredis').split(',')) {
    const front = await spawnMeasured(`lean-${mode}`, path.join(dir, 'front.mjs'), {
      ...env,
      LEAN_BACK: `127.0.0.1:${back.port}`,
      LEAN_REDIS: mode,
    });
    arms.push({
      name: `lean-${mode}`,
      url: `http://127.0.0.1:${front.port}`,
      cpu: async () => ({
        front: cpuOfPid(front.pid),
        back: cpuOfPid(back.pid),
        postgres: await cpuOfBackends(ctx.dbName, 'bench-lean'),
      }),
    });
  }
  return arms;
}

/**
 * BENCH_VARIANTS: each variant's gateway (and records, if it has its own) started as the
 * system's are, with the same settings; arms on the system's request lists (a variant must
 * serve the same pages: cursors are signed with the same secret).
 */
async function startVariants(ctx) {
  const arms = [];
  for (const variant of SETTINGS.variants) {
    const records = variant.records
      ? await spawnMeasured(
          `records-${variant.name}`,
          variant.records,
          recordsEnv(ctx),
          variant.recordsFlags ?? RECORDS_HEAP_FLAGS,
        )
      : ctx.records;
    const gateway = await spawnMeasured(
      `gateway-${variant.name}`,
      variant.gateway,
      gatewayEnv(ctx, `127.0.0.1:${records.port}`, {
        PLANS_GRPC_ADDR: `127.0.0.1:${ctx.plans.port}`,
      }),
      variant.gatewayFlags ?? HEAP_FLAGS,
    );
    arms.push({
      name: variant.name,
      url: `http://127.0.0.1:${gateway.port}`,
      cpu: systemCpu(ctx.dbName, gateway, records),
    });
  }
  return arms;
}
