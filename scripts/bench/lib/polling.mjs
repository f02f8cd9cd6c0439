// S7 and S8 (issue 18): a poller re-reading a first page with If-None-Match.
//   S7 the page is unchanged: the system's 304 (decided from the change version read in the
//      rate-limit script: no records call, no PostgreSQL) against B0 with express's own ETag
//      handling (it queries and builds the page, hashes it, then answers 304), in the same
//      round-robin slices; polls/s and CPU per poll of every process involved.
//   S8 the same poller, one connection, polling back to back through the system while
//      another client changes one record of that first page a second (ApproveSubmission
//      through records' admin RPC): every change must show in the first poll that starts
//      after the change was acknowledged, and no 304 may ever hide a change.
import { existsSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { Redis } from 'ioredis';
import { cpuOfBackends, cpuOfPid, runArms } from './arms.mjs';
import { redisUrl } from './infra.mjs';
import { percentile } from './load.mjs';
import { listPath } from './pages.mjs';
import { spawnHelper } from './stack.mjs';
import { ADMIN_TOKEN, CURSOR_SECRET, MAINS, SETTINGS, round, say } from './settings.mjs';

const require = createRequire(import.meta.url);
const grpc = require('@grpc/grpc-js');
const { RecordsServiceClient } = require('@brand/proto/records/v1');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One GET on a keep-alive agent: { status, etag, body, startedAt }. */
function get(agent, url, secret, etag) {
  const startedAt = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(
      url,
      {
        agent,
        headers: {
          authorization: `Bearer ${secret}`,
          ...(etag === undefined ? {} : { 'if-none-match': etag }),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            etag: res.headers.etag,
            body: Buffer.concat(chunks).toString('utf8'),
            startedAt,
          }),
        );
      },
    );
    req.on('error', reject);
  });
}

/** The page's ETag once a conditional GET of it is answered 304 (a first page writes its version back). */
async function settledEtag(agent, url, secret) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { etag } = await get(agent, url, secret, '"none"');
    if (etag && (await get(agent, url, secret, etag)).status === 304) return etag;
    if (Date.now() > deadline) throw new Error(`${url} never answered 304 to its ETag ${etag}`);
    await sleep(100);
  }
}

/** The pid of the Redis server, when it runs on this machine (its CPU counts for the system). */
async function localRedisPid() {
  const client = new Redis(redisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const pid = Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1]);
    const local = ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(redisUrl()).hostname);
    return local && Number.isInteger(pid) && existsSync(`/proc/${pid}/stat`) ? pid : undefined;
  } finally {
    client.disconnect();
  }
}

/** S7: returns runArms' figures for B0 and REST (both 304 only) and the page's ETags. */
async function runS7(ctx) {
  const { gatewayUrl, loadBrand } = ctx;
  const b0 = await spawnHelper('b0-poll', MAINS.b0, { DATABASE_URL: ctx.dbUrl, CURSOR_SECRET });
  const b0Url = `http://127.0.0.1:${b0.port}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const path = listPath(SETTINGS.pageSize);
    const restEtag = await settledEtag(agent, `${gatewayUrl}${path}`, loadBrand.secret);
    const b0Etag = await settledEtag(agent, `${b0Url}${path}`, loadBrand.secret);
    const redisPid = await localRedisPid();
    if (redisPid === undefined)
      ctx.notes.push('S7: Redis is not local; its CPU is not in the system figure');
    const poll = (etag) => ({
      method: 'GET',
      path,
      headers: { authorization: `Bearer ${loadBrand.secret}`, 'if-none-match': etag },
    });
    const s7 = await runArms(
      'S7',
      [
        {
          name: 'B0',
          url: b0Url,
          request: poll(b0Etag),
          expect: [304],
          cpu: async () => ({
            b0: cpuOfPid(b0.pid),
            postgres: await cpuOfBackends(ctx.dbName, 'bench-b0'),
          }),
        },
        {
          name: 'REST',
          url: gatewayUrl,
          request: poll(restEtag),
          expect: [304],
          cpu: async () => ({
            gateway: cpuOfPid(ctx.gateway.pid),
            records: cpuOfPid(ctx.records.pid),
            postgres: await cpuOfBackends(ctx.dbName, 'records'),
            ...(redisPid === undefined ? {} : { redis: cpuOfPid(redisPid) }),
          }),
        },
      ],
      ctx,
    );
    return { ...s7, etags: { rest: restEtag, b0: b0Etag } };
  } finally {
    agent.destroy();
    await b0.stop();
  }
}

/** Approves one submission through records' admin RPC; resolves when it is acknowledged. */
function approve(client, id) {
  const metadata = new grpc.Metadata();
  metadata.set('x-internal-token', ADMIN_TOKEN);
  return new Promise((resolve, reject) =>
    client.approveSubmission(
      { submission_id: id },
      metadata,
      { deadline: Date.now() + 10_000 },
      (err) =>
        err ? reject(new Error(`approveSubmission: ${err.details || err.message}`)) : resolve(),
    ),
  );
}

/** S8: the poller and the changer; returns what the poller saw of every change. */
async function runS8(ctx) {
  const { gatewayUrl, loadBrand } = ctx;
  const url = `${gatewayUrl}${listPath(SETTINGS.pageSize)}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const client = new RecordsServiceClient(ctx.recordsAddress, grpc.credentials.createInsecure());
  try {
    const first = await get(agent, url, loadBrand.secret);
    const pending = JSON.parse(first.body)
      .data.filter((r) => r.status === 'pending')
      .map((r) => r.id);
    const wanted = SETTINGS.s8Seconds;
    if (pending.length < wanted)
      throw new Error(
        `S8 needs ${wanted} pending submissions on the first page, found ${pending.length}`,
      );
    /** Changes acknowledged so far: { id, ackedAt, seenAt?, pollsToSee? } */
    const changes = [];
    let held = new Map(JSON.parse(first.body).data.map((r) => [r.id, r.status]));
    let etag = first.etag;
    let stop = false;
    const polls = { total: 0, notModified: 0, full: 0, stale: 0 };
    const poller = (async () => {
      while (!stop) {
        const res = await get(agent, url, loadBrand.secret, etag);
        polls.total += 1;
        if (res.status === 304) polls.notModified += 1;
        else if (res.status === 200) {
          polls.full += 1;
          etag = res.etag;
          held = new Map(JSON.parse(res.body).data.map((r) => [r.id, r.status]));
        } else throw new Error(`S8 poll answered ${res.status}: ${res.body.slice(0, 200)}`);
        const now = performance.now();
        for (const c of changes) {
          if (c.ackedAt > res.startedAt) continue; // acknowledged after this poll began
          c.polls = (c.polls ?? 0) + (c.seenAt === undefined ? 1 : 0);
          if (held.get(c.id) === 'approved') c.seenAt ??= now;
          else polls.stale += 1; // a poll that began after the change and does not show it
        }
      }
    })();
    const changer = (async () => {
      for (const id of pending.slice(0, wanted)) {
        const next = performance.now() + 1_000;
        await approve(client, id);
        changes.push({ id, ackedAt: performance.now() });
        await sleep(Math.max(0, next - performance.now()));
      }
    })();
    await changer;
    await sleep(200); // the last change's polls
    stop = true;
    await poller;
    const seenWithinOne = changes.filter((c) => c.seenAt !== undefined && c.polls === 1).length;
    const latencies = changes
      .filter((c) => c.seenAt !== undefined)
      .map((c) => c.seenAt - c.ackedAt);
    const s8 = {
      changes: changes.length,
      seenWithinOne,
      stale: polls.stale,
      polls: polls.total,
      notModified: polls.notModified,
      full: polls.full,
      seenP50Ms: round(percentile(latencies, 50), 2),
      seenMaxMs: round(Math.max(...latencies), 2),
    };
    say(
      `S8 ${s8.changes} changes, ${s8.seenWithinOne} seen by the first poll after them, ${s8.stale} stale answers; ${s8.polls} polls (${s8.notModified} 304, ${s8.full} 200); ack to seen p50 ${s8.seenP50Ms} ms, max ${s8.seenMaxMs} ms`,
    );
    if (s8.stale > 0 || s8.seenWithinOne < s8.changes)
      ctx.invalid.push(
        `S8: ${s8.changes - s8.seenWithinOne} change(s) not seen by the first poll after them, ${s8.stale} stale answer(s)`,
      );
    return s8;
  } finally {
    agent.destroy();
    client.close();
  }
}

/** S7, then S8, on the running gateway and records. */
export async function runPollingScenarios(ctx) {
  const s7 = await runS7(ctx);
  const s8 = await runS8(ctx);
  return { s7, s8 };
}
