import {
  createAdminClient,
  createTestDatabase,
  freePort,
  freeRedisPrefixKeys,
  makeBrandWithKey,
  makeRecords,
  scrapeMetric,
  startGateway,
  startRecords,
  stopAllServices,
  uniqueRedisPrefix,
  waitFor,
  type AdminClient,
  type GatewayProcess,
  type RecordsProcess,
  type TestDatabase,
} from '@brand/testkit';
import { ApiClient, type ApiResponse } from '../support/apiClient';
import type { ErrorBody } from '../../src/http/errorResponse';

// Pages travel from the gateway to records as messages on long-lived bidirectional streams. Real
// processes: a deadline that passes, a client that goes away, a bound on pages in flight, a second
// records replica taking pages within seconds, and replicas killed mid-walk (no 5xx but 503 with
// Retry-After; pages in flight fail over).

const DEADLINE_MS = 1_500;

let db: TestDatabase;
let prefix: string;
let admin: AdminClient;
let recordsA: RecordsProcess;
let recordsB: RecordsProcess | undefined;
let portB: number;
let gateway: GatewayProcess;
let api: ApiClient;
let key: string;

/** Pages records answered on streams, by outcome (`ok`, `cancelled`, ...). */
const streamed = (records: RecordsProcess, code: string): Promise<number> =>
  scrapeMetric(
    records.opsUrl,
    new RegExp(`^grpc_server_handled_total\\{method="StreamRecordsPages",code="${code}"\\}`),
  );

/** Runs `fn` while records.submissions is locked: every page query waits. */
async function whileLocked<T>(fn: () => Promise<T>): Promise<T> {
  const client = await db.pool.connect();
  try {
    await client.query('begin');
    await client.query('lock table records.submissions in access exclusive mode');
    return await fn();
  } finally {
    await client.query('rollback');
    client.release();
  }
}

/** A 503 as clients must see it: our code and a wait to honour. */
function expectUnavailable(res: ApiResponse<ErrorBody>): void {
  expect(res.status).toBe(503);
  expect(res.body.error.code).toBe('service_unavailable');
  expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
}

/** Walks every page of submissions by cursor; statuses of every answer. */
async function walk(limit = 2): Promise<number[]> {
  const statuses: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const query = cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const res = await api.get<{ next_cursor?: string }>(
      `/api/v1/submissions?limit=${limit}${query}`,
      { key },
    );
    statuses.push(res.status);
    if (res.status !== 200) continue; // asked again, as a client honouring Retry-After would
    cursor = res.body.next_cursor;
    if (cursor === undefined) break;
  }
  return statuses;
}

beforeAll(async () => {
  db = await createTestDatabase();
  prefix = uniqueRedisPrefix();
  // Both ports are bound again later (records B's start, records A's restart): from below the
  // kernel's ephemeral range, where no outgoing connection of another test can take them
  // meanwhile (a fresh-clone run once found 127.0.0.1:33101 taken: EADDRINUSE).
  recordsA = await startRecords({
    databaseUrl: db.url,
    redisKeyPrefix: prefix,
    env: { GRPC_PORT: String(await freePort()) },
  });
  portB = await freePort();
  gateway = await startGateway({
    // the second address answers nothing until records B starts on it
    recordsAddr: `ipv4:${recordsA.address},127.0.0.1:${portB}`,
    redisKeyPrefix: prefix,
    env: {
      RATE_LIMIT_SCALE: '100',
      GRPC_DEADLINE_MS: String(DEADLINE_MS),
      PAGE_STREAMS_PER_ADDRESS: '2',
      PAGE_STREAM_MAX_AGE_MS: '3000',
      RECORDS_RESOLVE_INTERVAL_MS: '500',
    },
  });
  admin = createAdminClient(recordsA.address);
  api = new ApiClient(gateway.url);
  const brand = await makeBrandWithKey(admin, { tier: 'enterprise' });
  key = brand.secret;
  await makeRecords(db.pool, brand.brand.id, 'submissions', 9);
  await waitFor(async () => (await api.get('/api/v1/submissions', { key })).status === 200, {
    what: 'a first page',
  });
});

afterAll(async () => {
  await stopAllServices();
  admin?.close();
  await db?.close();
  if (prefix) await freeRedisPrefixKeys(prefix).catch(() => undefined);
});

describe('the page hop: pages as messages on long-lived streams', () => {
  it('walks every page on the streams, and shows the pool on the internal listener', async () => {
    expect(await walk()).toEqual([200, 200, 200, 200, 200]);
    expect(await streamed(recordsA, 'ok')).toBeGreaterThanOrEqual(5);
    expect(
      await scrapeMetric(gateway.opsUrl, /^records_page_streams_open /),
    ).toBeGreaterThanOrEqual(2);
    // streams are replaced by age (3 s here): the walk goes on across recycling
    await waitFor(
      async () => (await scrapeMetric(gateway.opsUrl, /^records_page_stream_recycles_total /)) > 0,
      { what: 'a stream recycled', timeoutMs: 8_000 },
    );
    expect(await walk()).toEqual([200, 200, 200, 200, 200]);
  });

  it('answers 503 with Retry-After when the deadline passes, and records drops the page', async () => {
    const cancelledBefore = await streamed(recordsA, 'cancelled');
    const { res, ms } = await whileLocked(async () => {
      const started = Date.now();
      const r = await api.get<ErrorBody>('/api/v1/submissions?limit=3', { key });
      return { res: r, ms: Date.now() - started };
    });
    expectUnavailable(res);
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(ms).toBeLessThan(DEADLINE_MS + 1_500);
    // the page finished after the lock went, for nobody: records counted it cancelled
    await waitFor(async () => (await streamed(recordsA, 'cancelled')) > cancelledBefore, {
      what: 'records dropped the expired page',
    });
  });

  it('cancels the page of a client that goes away', async () => {
    const cancelledBefore = await streamed(recordsA, 'cancelled');
    const okBefore = await streamed(recordsA, 'ok');
    await whileLocked(async () => {
      const controller = new AbortController();
      const asked = fetch(`${gateway.url}/api/v1/submissions?limit=4`, {
        headers: { authorization: `Bearer ${key}` },
        signal: controller.signal,
      }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      controller.abort();
      await asked;
      await new Promise((r) => setTimeout(r, 200));
    });
    await waitFor(async () => (await streamed(recordsA, 'cancelled')) > cancelledBefore, {
      what: 'records dropped the page of the client that left',
    });
    expect(await streamed(recordsA, 'ok')).toBe(okBefore);
  });

  it('bounds the pages in flight per stream: the rest wait in a bounded queue, then 503', async () => {
    const tight = await startGateway({
      recordsAddr: recordsA.address,
      redisKeyPrefix: prefix,
      env: {
        RATE_LIMIT_SCALE: '100',
        GRPC_DEADLINE_MS: '4000',
        PAGE_STREAMS_PER_ADDRESS: '1',
        PAGE_STREAM_MAX_IN_FLIGHT: '1',
        PAGE_STREAM_MAX_QUEUED: '2',
      },
    });
    const tightApi = new ApiClient(tight.url);
    await waitFor(async () => (await tightApi.get('/api/v1/submissions', { key })).status === 200);
    const answers = await whileLocked(async () => {
      const asked = [1, 2, 3, 4, 5].map(async (i) => {
        const started = Date.now();
        const res = await tightApi.get<ErrorBody>(`/api/v1/submissions?limit=${i}`, { key });
        return { res, ms: Date.now() - started };
      });
      // 1 in flight and 2 queued; the other two are refused at once
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await scrapeMetric(tight.opsUrl, /^records_page_stream_queued /)).toBe(2);
      expect(await scrapeMetric(tight.opsUrl, /^records_page_stream_in_flight /)).toBe(1);
      return asked;
    }).then((asked) => Promise.all(asked));
    const refused = answers.filter((a) => a.res.status === 503);
    expect(refused).toHaveLength(2);
    for (const r of refused) {
      expectUnavailable(r.res);
      expect(r.ms).toBeLessThan(1_000);
    }
    expect(answers.filter((a) => a.res.status === 200)).toHaveLength(3);
    await tight.stop();
  });

  it('a second records process starts and takes pages within 10 s', async () => {
    recordsB = await startRecords({
      databaseUrl: db.url,
      redisKeyPrefix: prefix,
      env: { GRPC_PORT: String(portB) },
    });
    const started = Date.now();
    await waitFor(
      async () => {
        await walk();
        return (await streamed(recordsB!, 'ok')) > 0;
      },
      { what: 'records B answering pages', timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a replica killed mid-walk: its pages fail over, nothing is a 5xx but 503 with Retry-After', async () => {
    const statuses: number[] = [];
    const walking = (async () => {
      const until = Date.now() + 3_000;
      while (Date.now() < until) statuses.push(...(await walk()));
    })();
    await new Promise((r) => setTimeout(r, 500));
    await recordsB!.kill();
    await walking;
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(await walk()).toEqual([200, 200, 200, 200, 200]);
  });

  it('every replica killed: 503 with Retry-After at once; back within 10 s of a restart', async () => {
    const port = recordsA.port;
    await recordsA.kill();
    const down = await api.get<ErrorBody>('/api/v1/submissions?limit=2', { key });
    expectUnavailable(down);
    recordsA = await startRecords({
      databaseUrl: db.url,
      redisKeyPrefix: prefix,
      env: { GRPC_PORT: String(port) },
    });
    const restarted = Date.now();
    await waitFor(
      async () => (await api.get('/api/v1/submissions?limit=2', { key })).status === 200,
      { what: 'pages again', timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(Date.now() - restarted).toBeLessThan(10_000);
  });
});
