// E1 and E2 (issue 44 item 6): the events feed beside the lists, through the same gateway.
//   E1 an events page (GET /api/v1/events?limit=50, served by the webhooks process over
//      gRPC) against a list page of the same size (GET /api/v1/submissions?limit=50), both
//      200, in the same round-robin slices; target: the events page at >= 0.8x the list's rate.
//   E2 an unchanged events poll (If-None-Match, 304, decided at the gateway from the feed
//      version in Redis, no call to webhooks) against S7's unchanged list poll (304); target:
//      as cheap (>= 0.9x its rate).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { cpuOfBackends, cpuOfPid, runArms } from './arms.mjs';
import { spawnMeasured } from './stack.mjs';
import { ADMIN_TOKEN, INTERNAL_TOKEN, MAINS, SETTINGS, round, say } from './settings.mjs';

/** Events seeded into the load brand's feed: enough for many full pages. */
const FEED_EVENTS = 5_000;

/**
 * The webhooks process the gateway reads the feed from: its admin role alone (no consumer, no
 * workers), measured like the others. Resolves with the process; its address goes to the
 * gateway as WEBHOOKS_GRPC_ADDR.
 */
export function startFeedService(dbUrl) {
  return spawnMeasured('webhooks-feed', MAINS.webhooks, {
    WEBHOOKS_ROLES: 'admin',
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    DATABASE_URL: dbUrl,
    INTERNAL_TOKEN,
    ADMIN_TOKEN,
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'info',
  });
}

/** FEED_EVENTS payout.paid events of the brand, a second apart, with their feed positions. */
export async function seedFeedEvents(databaseUrl, brandId) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `insert into webhooks.events (id, brand_id, type, created_at, object_json, record_id, feed_seq)
       select 'evt_bench' || lpad(g::text, 11, '0'), $1, 'payout.paid',
              now() - ($2 - g) * interval '1 second',
              -- JSON.stringify's form, as the consumer stores every object
              format('{"resource":"payouts","id":"%s","status":"paid","amount":250000,"currency":"PHP"}',
                'po_bench' || lpad(g::text, 12, '0')),
              'po_bench' || lpad(g::text, 12, '0'), g
       from generate_series(1, $2::int) as g`,
      [brandId, FEED_EVENTS],
    );
    await client.query(
      `insert into webhooks.event_feed_heads (brand_id, last_seq) values ($1, $2)
       on conflict (brand_id) do update set last_seq = excluded.last_seq`,
      [brandId, FEED_EVENTS],
    );
    await client.query('analyze webhooks.events');
  } finally {
    await client.end();
  }
}

/** The ETag of a path once a conditional GET of it is 304 (the first full page writes the version back). */
async function settledEtag(url, secret) {
  const get = (etag) =>
    new Promise((resolve, reject) => {
      const req = http.get(
        url,
        {
          headers: {
            authorization: `Bearer ${secret}`,
            ...(etag ? { 'if-none-match': etag } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode, etag: res.headers.etag }));
        },
      );
      req.on('error', reject);
    });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { etag } = await get();
    if (etag && (await get(etag)).status === 304) return etag;
    if (Date.now() > deadline) throw new Error(`${url} never answered 304 to its ETag ${etag}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** E1 and E2 on the running gateway, records and webhooks-feed; runArms' figures for each. */
export async function runEventsFeedScenarios(ctx) {
  const { gatewayUrl, loadBrand, feed } = ctx;
  const auth = { authorization: `Bearer ${loadBrand.secret}` };
  const listPath = `/api/v1/submissions?limit=${SETTINGS.pageSize}`;
  const eventsPath = `/api/v1/events?limit=${SETTINGS.pageSize}`;
  const cpu = async () => ({
    gateway: cpuOfPid(ctx.gateway.pid),
    records: cpuOfPid(ctx.records.pid),
    webhooks: cpuOfPid(feed.pid),
    'postgres (records)': await cpuOfBackends(ctx.dbName, 'records'),
    'postgres (webhooks)': await cpuOfBackends(ctx.dbName, 'webhooks'),
  });
  const e1 = await runArms(
    'E1',
    [
      {
        name: 'list',
        url: gatewayUrl,
        request: { method: 'GET', path: listPath, headers: auth },
        cpu,
      },
      {
        name: 'events',
        url: gatewayUrl,
        request: { method: 'GET', path: eventsPath, headers: auth },
        cpu,
      },
    ],
    ctx,
  );
  const listEtag = await settledEtag(`${gatewayUrl}${listPath}`, loadBrand.secret);
  const eventsEtag = await settledEtag(`${gatewayUrl}${eventsPath}`, loadBrand.secret);
  const poll = (path, etag) => ({
    method: 'GET',
    path,
    headers: { ...auth, 'if-none-match': etag },
  });
  const e2 = await runArms(
    'E2',
    [
      { name: 'list', url: gatewayUrl, request: poll(listPath, listEtag), expect: [304], cpu },
      {
        name: 'events',
        url: gatewayUrl,
        request: poll(eventsPath, eventsEtag),
        expect: [304],
        cpu,
      },
    ],
    ctx,
  );
  say(
    `E1 events page ${round(e1.arms.events.rps)}/s vs list page ${round(e1.arms.list.rps)}/s; E2 unchanged events poll ${round(e2.arms.events.rps)}/s vs list poll ${round(e2.arms.list.rps)}/s`,
  );
  return { e1, e2 };
}
