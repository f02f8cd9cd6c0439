// Benchmark data: brands and keys through the records service's admin gRPC API (exactly
// as brandctl creates them), the walk's demo records (SeedDemoData, as brandctl seeds them),
// submissions in bulk through SQL, and the deep cursor by
// following next_cursor through the data-plane RPC.
import { createRequire } from 'node:module';
import pg from 'pg';

// The generated clients are CommonJS, built by `tsc -b` into proto/dist.
const require = createRequire(import.meta.url);
const grpc = require('@grpc/grpc-js');
const { AccessServiceClient, BrandTier, Environment } = require('@brand/proto/access/v1');
const { RecordsServiceClient, Resource } = require('@brand/proto/records/v1');

const DEADLINE_MS = 10_000;

/** Promise form of one unary call of a generated client. */
function call(client, method, request, metadata = new grpc.Metadata(), deadlineMs = DEADLINE_MS) {
  return new Promise((resolve, reject) => {
    client[method](request, metadata, { deadline: Date.now() + deadlineMs }, (err, res) =>
      err ? reject(new Error(`${method}: ${err.details || err.message}`)) : resolve(res),
    );
  });
}

/** Runs `fn(i)` for i in 0..n-1 with at most `concurrency` in flight. */
export async function pooled(n, concurrency, fn) {
  const results = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++;
        results[i] = await fn(i);
      }
    }),
  );
  return results;
}

/**
 * Creates `count` verified Enterprise brands, each with an owner and one live key (with
 * `permissions`), via the admin API. Returns `[{ brandId, secret }]`.
 */
export async function createEnterpriseBrands(
  recordsAddress,
  internalToken,
  count,
  { permissions = [], namePrefix = 'Bench Brand' } = {},
) {
  const access = new AccessServiceClient(recordsAddress, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('x-internal-token', internalToken);
  try {
    return await pooled(count, 16, async (i) => {
      const { brand, owner } = await call(
        access,
        'createBrand',
        {
          name: `${namePrefix} ${i}`,
          tier: BrandTier.BRAND_TIER_ENTERPRISE,
          verified: true,
          owner_email: `owner${i}.${namePrefix.replace(/\W+/g, '').toLowerCase()}@bench.test`,
        },
        metadata,
      );
      const { secret } = await call(
        access,
        'createKey',
        {
          brand_id: brand.id,
          name: 'Bench load',
          environment: Environment.ENVIRONMENT_LIVE,
          actor_email: owner.email,
          permissions,
          // any network (issue 63): ts-proto's encoder needs every repeated field
          allowed_networks: [],
        },
        metadata,
      );
      return { brandId: brand.id, secret };
    });
  } finally {
    access.close();
  }
}

/**
 * Gives each brand one campaign and `perBrand` submissions, one second apart (newest
 * now), with random microseconds as PostgreSQL would store them; then ANALYZE, so the
 * planner sees the tables as a long-running database would. Statuses cycle through
 * pending, approved and rejected, or are all `status` when given.
 */
export async function insertSubmissions(databaseUrl, brandIds, perBrand, { status } = {}) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('set search_path = records');
    await client.query(
      `insert into campaigns (id, brand_id, title, type, status, budget_amount, platforms,
                              starts_on, ends_on, created_at, updated_at)
       select 'cmp_' || substr(md5(b), 1, 20), b, 'Bench Campaign', 'ugc', 'active', 100000000,
              array['tiktok', 'instagram'], current_date - 400, current_date + 30,
              now() - interval '400 days', now() - interval '400 days'
       from unnest($1::text[]) as b`,
      [brandIds],
    );
    await client.query(
      `insert into submissions (id, brand_id, campaign_id, creator_handle, platform, content_url,
                                status, rejection_reason, views, created_at, updated_at, reviewed_at)
       select 'sub_' || substr(md5(random()::text || b || g), 1, 20), b, 'cmp_' || substr(md5(b), 1, 20),
              h.handle, p.platform,
              'https://www.' || p.platform || '.com/@' || h.handle || '/video/' || (7000000000 + g),
              s.status, case when s.status = 'rejected' then 'Brand logo not visible' end,
              case when s.status = 'approved' then 1000 + g * 7 else 0 end,
              t.at, t.at, case when s.status <> 'pending' then t.at end
       from unnest($1::text[]) as b
       cross join generate_series(1, $2::int) as g
       cross join lateral (select now() - g * interval '1 second'
                                  - floor(random() * 1000000) * interval '1 microsecond' as at) t
       cross join lateral (select (array['mika.creates', 'jun_eats_mnl', 'bea.styles',
                                         'carlo.vlogs', 'tita.reviews'])[1 + g % 5] as handle) h
       cross join lateral (select (array['tiktok', 'instagram', 'youtube', 'facebook'])[1 + g % 4]
                                  as platform) p
       cross join lateral (select coalesce($3, (array['pending', 'approved', 'rejected'])[1 + g % 3])
                                  as status) s`,
      [brandIds, perBrand, status ?? null],
    );
    await client.query('analyze brands, api_keys, campaigns, submissions');
  } finally {
    await client.end();
  }
}

/**
 * Fills each brand with demo records across the six resources at `scale` (SeedDemoData,
 * the admin RPC `brandctl seed` calls: about 4,000 records per brand at scale 1), a few
 * brands at a time. Returns the records created per brand and resource.
 */
export async function seedDemoData(recordsAddress, adminToken, brandIds, scale) {
  const client = recordsClient(recordsAddress);
  const metadata = new grpc.Metadata();
  metadata.set('x-internal-token', adminToken);
  try {
    return await pooled(brandIds.length, 4, async (i) => {
      const { created } = await call(
        client,
        'seedDemoData',
        { brand_id: brandIds[i], scale },
        metadata,
        60_000,
      );
      return created;
    });
  } finally {
    client.close();
  }
}

/** A data-plane client of the records service (calls carry the internal token). */
export function recordsClient(recordsAddress) {
  return new RecordsServiceClient(recordsAddress, grpc.credentials.createInsecure());
}

/** One page of a brand's submissions through ListRecordsPage (the gateway's RPC): { count, next_cursor }. */
export function listSubmissions(client, brandId, limit, cursor, token) {
  const metadata = new grpc.Metadata();
  metadata.set('x-internal-token', token);
  return call(
    client,
    'listRecordsPage',
    {
      brand_id: brandId,
      resource: Resource.RESOURCE_SUBMISSIONS,
      limit,
      ...(cursor ? { cursor } : {}),
    },
    metadata,
  );
}

/**
 * Follows next_cursor from the first page until `depth` rows have been read and returns
 * the cursor of the page that starts there, with how many pages and rows it took.
 */
export async function cursorAtDepth(recordsAddress, brandId, depth, pageSize, token) {
  const client = recordsClient(recordsAddress);
  try {
    let cursor;
    let rows = 0;
    let pages = 0;
    while (rows < depth) {
      const page = await listSubmissions(client, brandId, pageSize, cursor, token);
      pages += 1;
      rows += page.count;
      if (!page.next_cursor) throw new Error(`the walk ended after ${rows} rows, before ${depth}`);
      cursor = page.next_cursor;
    }
    return { cursor, pages, rows };
  } finally {
    client.close();
  }
}
