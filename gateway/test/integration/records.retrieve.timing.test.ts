import { newId } from '@brand/shared/ids';
import { makeBrandWithKey, makeRecords, startStack, type Stack } from '@brand/testkit';

// Another brand's id and an id that exists nowhere answer GET /api/v1/payouts/{id} in the same
// time, not only with the same bytes (records.retrieve.security.test.ts): both are one probe of the
// (brand_id, id) index that finds no entry (migration 0020). Measured as an attacker would, over
// HTTP on one keep-alive connection, the two kinds interleaved in random order so the machine's
// noise falls on both alike; then a two-sample Kolmogorov-Smirnov test: the distributions must not
// separate at the 0.1 % level.

const PAIRS = 200;
const WARMUP_PAIRS = 30;
/** c(alpha) of the two-sample KS test at alpha = 0.001. */
const KS_C_ALPHA = 1.949;

let stack: Stack;
let key: string;
const foreignIds: string[] = [];

beforeAll(async () => {
  // a budget far above the test's requests; the Redis script still runs for each
  stack = await startStack({ gatewayEnv: { RATE_LIMIT_SCALE: '100' } });
  const mine = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  const theirs = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  key = mine.secret;
  await makeRecords(stack.db.pool, mine.brand.id, 'payouts', 50);
  const rows = await makeRecords(stack.db.pool, theirs.brand.id, 'payouts', 50);
  foreignIds.push(...rows.map((r) => r.id));
});

afterAll(() => stack?.close());

/** Milliseconds of one request, checked to be the 404 the test is about. */
async function timed(id: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${stack.gateway.url}/api/v1/payouts/${id}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await res.arrayBuffer();
  const ms = performance.now() - started;
  expect(res.status).toBe(404);
  return ms;
}

/** The two-sample Kolmogorov-Smirnov statistic: the largest gap between the two ECDFs. */
function ksStatistic(a: number[], b: number[]): number {
  const x = [...a].sort((p, q) => p - q);
  const y = [...b].sort((p, q) => p - q);
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < x.length && j < y.length) {
    const v = Math.min(x[i]!, y[j]!);
    while (i < x.length && x[i]! <= v) i++;
    while (j < y.length && y[j]! <= v) j++;
    d = Math.max(d, Math.abs(i / x.length - j / y.length));
  }
  return d;
}

const median = (v: number[]): number => [...v].sort((p, q) => p - q)[v.length >> 1]!;

describe("another brand's id and an id that exists nowhere: the same time", () => {
  it('their latency distributions do not separate (two-sample KS, alpha 0.001)', async () => {
    const foreign: number[] = [];
    const nowhere: number[] = [];
    for (let i = 0; i < WARMUP_PAIRS + PAIRS; i++) {
      const pair = [
        { into: foreign, id: foreignIds[i % foreignIds.length]! },
        { into: nowhere, id: newId('payout') },
      ];
      if (Math.random() < 0.5) pair.reverse();
      for (const { into, id } of pair) {
        const ms = await timed(id);
        if (i >= WARMUP_PAIRS) into.push(ms);
      }
    }
    const d = ksStatistic(foreign, nowhere);
    const critical =
      KS_C_ALPHA * Math.sqrt((foreign.length + nowhere.length) / (foreign.length * nowhere.length));
    const summary = `D=${d.toFixed(3)} (critical ${critical.toFixed(3)}); medians foreign ${median(foreign).toFixed(3)} ms, nowhere ${median(nowhere).toFixed(3)} ms`;
    expect({ separated: d >= critical, summary }).toEqual({ separated: false, summary });
  }, 180_000);
});
