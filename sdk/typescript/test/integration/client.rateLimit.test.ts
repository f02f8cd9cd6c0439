// A walk that meets the brand's real rate limit (Plus: 60 requests a minute, a sliding window in
// Redis) waits as Retry-After says and still yields every record exactly once. The budget is spent
// first, so the walk hits 429 after a few pages; the wait that follows is up to a minute of real
// time (the window cannot be shortened).
import { BrandRecords } from '@brand-records/client';
import { makeBrandWithKey, makeRecords, startStack, type Stack } from '@brand/testkit';

const PLUS_PER_MINUTE = 60;
const RECORDS = 320;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

it('walks 320 submissions through a 429: every record once, never sooner than Retry-After', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'plus' });
  const expected = (await makeRecords(stack.db.pool, brand.brand.id, 'submissions', RECORDS)).map(
    (s) => s.id,
  );

  /** Every answer the client got, with when it asked. */
  const answers: Array<{ at: number; status: number; retryAfter: number | undefined }> = [];
  const client = new BrandRecords({
    apiKey: brand.secret,
    baseUrl: stack.gateway.url,
    fetch: async (input, init) => {
      const at = Date.now();
      const res = await fetch(input, init);
      const retryAfter = res.headers.get('retry-after');
      answers.push({
        at,
        status: res.status,
        retryAfter: retryAfter === null ? undefined : Number(retryAfter),
      });
      return res;
    },
  });

  // Spend most of the brand's budget, leaving room for three pages of the walk.
  const spend = PLUS_PER_MINUTE - 3;
  let remaining: number | undefined;
  for (let i = 0; i < spend; i++)
    remaining = (await client.campaigns.list({ limit: 1 })).meta.rateLimit?.remaining;
  expect(remaining).toBe(3);
  answers.length = 0;

  const seen: string[] = [];
  for await (const submission of client.submissions.all({ limit: 25 })) seen.push(submission.id);

  expect(seen).toEqual(expected);
  expect(new Set(seen).size).toBe(RECORDS);
  const refusals = answers.filter((a) => a.status === 429);
  expect(refusals.length).toBeGreaterThanOrEqual(1);
  expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
  // After each 429 the next request waited at least the Retry-After it was given.
  for (const [i, answer] of answers.entries()) {
    if (answer.status !== 429) continue;
    const next = answers[i + 1]!;
    expect(answer.retryAfter).toBeGreaterThanOrEqual(1);
    expect(next.at - answer.at).toBeGreaterThanOrEqual(answer.retryAfter! * 1000);
  }
  const waited = refusals.map((r) => answers[answers.indexOf(r) + 1]!.at - r.at);
  console.log(
    `walk: ${seen.length} records, ${answers.length} requests, ${refusals.length} refused (429), ` +
      `Retry-After ${refusals.map((r) => r.retryAfter).join('/')} s, waited ${waited.join('/')} ms`,
  );
  // 13 pages of 25 (the 13th short) plus the refused attempts.
  expect(answers.filter((a) => a.status === 200)).toHaveLength(Math.ceil(RECORDS / 25));
}, 180_000);
