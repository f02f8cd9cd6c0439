// Load generators: autocannon for HTTP throughput (wrk for the walk: wrk.mjs), a sequential interleaved client for
// first-page vs deep-page latency through the gateway, and a closed-loop gRPC client for
// the same comparison on the records service itself.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import autocannon from 'autocannon';
import { listSubmissions, recordsClient } from './seed.mjs';

/** Nearest-rank percentile of an unsorted array of numbers. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** CPU time (user + system) a process has used so far, in seconds, from /proc/<pid>/stat. */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the fields after the command name, which is in parentheses and may contain spaces
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100; // sysconf(_SC_CLK_TCK) on Linux

/** One autocannon run; the raw result (histograms undecoded) for later aggregation. */
function cannonRaw({ url, request, connections, seconds }) {
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [request],
    timeout: 10,
    skipAggregateResult: true,
  });
}

/** Sums raw autocannon results into the figures the report uses. */
function combine(results, url, connections) {
  const statusCounts = {};
  for (const r of results)
    for (const [code, { count }] of Object.entries(r.statusCodeStats ?? {}))
      statusCounts[code] = (statusCounts[code] ?? 0) + Number(count);
  const requests = Object.values(statusCounts).reduce((a, b) => a + b, 0);
  const seconds = results.reduce((a, r) => a + r.duration, 0);
  // merges the latency histograms (the decoded copies; the raw results stay reusable)
  const merged = autocannon.aggregateResult(
    results.map((r) => ({ ...r, statusCodeStats: structuredClone(r.statusCodeStats) })),
    { url, connections },
  );
  return {
    seconds,
    requests,
    rps: requests / seconds,
    p50: merged.latency.p50,
    p99: merged.latency.p99,
    statusCounts,
    errors: results.reduce((a, r) => a + r.errors, 0),
    timeouts: results.reduce((a, r) => a + r.timeouts, 0),
  };
}

/** Requests per second of one raw autocannon slice. */
const rateOf = (r) =>
  Object.values(r.statusCodeStats).reduce((a, s) => a + Number(s.count), 0) / r.duration;

/**
 * A load tool as interleavedArms drives it: `slice({ url, request, connections, seconds })`
 * runs one slice and resolves with its raw result, `combine(raws, url, connections)` sums
 * slices into { seconds, requests, rps, p50, p99 (ms), statusCounts, errors, timeouts },
 * `rate(raw)` is one slice's requests per second. autocannon is the default; the walk's
 * arms use wrk (wrk.mjs).
 */
const AUTOCANNON = { slice: cannonRaw, combine, rate: rateOf };

/** One plain run of an arm's tool (a warm-up): the combined figures of that single run. */
export async function cannon({ url, request, connections, seconds, tool = AUTOCANNON }) {
  return tool.combine([await tool.slice({ url, request, connections, seconds })], url, connections);
}

/**
 * Round-robins `rounds` slices of `sliceSeconds` over the arms (A B C A B C ...), each
 * with the same connections, so every arm sees the machine in the same state however the
 * other tenants' load moves. `arms` is [{ name, url, request, tool? }] (tool: AUTOCANNON
 * unless given); `cpu` is { label: { seconds: () => number, during: armName } }: the CPU
 * seconds each label spent during its arm's slices. Returns { arms: { name: figures },
 * roundRatios: { name: [..] } (each round's rate over the first arm's), cpu: { label:
 * seconds } }.
 */
export async function interleavedArms({ arms, rounds, sliceSeconds, connections, cpu }) {
  const raw = Object.fromEntries(arms.map((a) => [a.name, []]));
  const cpuUsed = Object.fromEntries(Object.keys(cpu).map((label) => [label, 0]));
  const toolOf = (arm) => arm.tool ?? AUTOCANNON;
  for (let i = 0; i < rounds; i++) {
    for (const arm of arms) {
      const watched = Object.entries(cpu).filter(([, c]) => c.during === arm.name);
      const before = watched.map(([, c]) => c.seconds());
      raw[arm.name].push(
        await toolOf(arm).slice({
          url: arm.url,
          request: arm.request,
          connections,
          seconds: sliceSeconds,
        }),
      );
      watched.forEach(([label, c], j) => (cpuUsed[label] += c.seconds() - before[j]));
    }
  }
  const rate = (arm, r) => toolOf(arm).rate(r);
  const first = raw[arms[0].name];
  return {
    arms: Object.fromEntries(
      arms.map((a) => [a.name, toolOf(a).combine(raw[a.name], a.url, connections)]),
    ),
    roundRatios: Object.fromEntries(
      arms.map((a) => [a.name, raw[a.name].map((r, i) => rate(a, r) / rate(arms[0], first[i]))]),
    ),
    cpu: cpuUsed,
  };
}

/** A keep-alive GET with a Bearer key; resolves with the status, body and elapsed ms. */
function timedGet(agent, url, secret) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.get(url, { agent, headers: { Authorization: `Bearer ${secret}` } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          body: Buffer.concat(chunks).toString('utf8'),
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${url} timed out`)));
  });
}

/** One GET, parsed: for checking a page before putting load on it. */
export async function getJson(url, secret) {
  const agent = new http.Agent({ keepAlive: false });
  const r = await timedGet(agent, url, secret);
  return { status: r.status, body: r.body, json: JSON.parse(r.body) };
}

/**
 * Alternates requests to `urls.first` and `urls.deep` on one keep-alive connection, one at
 * a time, so both see the same machine at the same moments: `warmup` pairs unrecorded,
 * then `pairs` pairs recorded. Every answer must be a 200 with `expectCount` rows.
 * Returns the latencies (ms) of each arm.
 */
export async function interleavedLatency({ urls, secret, warmup, pairs, expectCount }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples = { first: [], deep: [] };
  try {
    for (let i = 0; i < warmup + pairs; i++) {
      for (const arm of i % 2 === 0 ? ['first', 'deep'] : ['deep', 'first']) {
        const r = await timedGet(agent, urls[arm], secret);
        if (r.status !== 200) throw new Error(`${arm} page answered ${r.status}: ${r.body}`);
        if (JSON.parse(r.body).count !== expectCount)
          throw new Error(`${arm} page had ${JSON.parse(r.body).count} rows, not ${expectCount}`);
        if (i >= warmup) samples[arm].push(r.ms);
      }
    }
  } finally {
    agent.destroy();
  }
  return samples;
}

/**
 * Closed-loop ListRecordsPage load on the records service: `concurrency` callers, for
 * `sliceMs` per slice, slices alternating first page / deep page (A B A B ...), so
 * a change in the machine's load hits both arms alike. Returns per-arm latencies (ms),
 * calls and busy seconds.
 */
export async function grpcDepthLoad({
  recordsAddress,
  token,
  brandId,
  deepCursor,
  limit,
  concurrency,
  slices,
  sliceMs,
}) {
  const client = recordsClient(recordsAddress);
  const arms = {
    first: { latencies: [], seconds: 0 },
    deep: { latencies: [], seconds: 0 },
  };
  try {
    for (let s = 0; s < slices; s++) {
      const arm = s % 2 === 0 ? 'first' : 'deep';
      const cursor = arm === 'deep' ? deepCursor : undefined;
      const started = Date.now();
      const until = started + sliceMs;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (Date.now() < until) {
            const t0 = process.hrtime.bigint();
            const page = await listSubmissions(client, brandId, limit, cursor, token);
            if (page.count !== limit)
              throw new Error(`${arm} page had ${page.count} rows, not ${limit}`);
            arms[arm].latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          }
        }),
      );
      arms[arm].seconds += (Date.now() - started) / 1000;
    }
  } finally {
    client.close();
  }
  return arms;
}
