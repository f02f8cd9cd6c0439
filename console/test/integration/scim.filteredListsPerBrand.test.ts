// A hostile review of one brand against the shared console (2026-12-01): a SCIM list the console
// filters or sorts itself (any filter but a lookup records makes, or any sortBy) reads up to
// 10,000 users into the console's memory; one of 10,000 users of long names took 235 MB and 9 s,
// and eight at once from one token 955 MB (five answered 503), while the per-token rate limit
// admits 3,000 requests a minute. One brand's provider could so run the console, shared by every
// brand, out of memory. Such lists are now read one at a time per brand (FILTERED_LISTS_PER_BRAND,
// per console process); another at once is answered 429 with Retry-After, which providers wait
// out and send again. Another brand's list is not held up by it.
import { randomHex } from '@brand/testkit';
import { signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { scimClient, scimTokenOf } from '../scimActors';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

/** A brand with `users` users written straight into records' tables, and a SCIM client. */
async function brandWithUsers(users: number) {
  const domain = `fl-${randomHex(4)}.test`;
  const made = await cs.stack.admin.createBrand({ ownerEmail: `owner@${domain}` });
  const owner = await signInHttp(cs, made.owner.email);
  const scim = scimClient(cs, await scimTokenOf(owner, made.brand.id, 'Okta'));
  await cs.stack.db.pool.query(
    `insert into records.scim_users (id, brand_id, user_name, display_name, email, emails,
       created_at, updated_at)
     select 'scu_' || $2 || lpad(n::text, 6, '0'), $1, 'User' || n || '@' || $3, 'Person ' || n,
            'user' || n || '@' || $3,
            jsonb_build_array(jsonb_build_object('value', 'user' || n || '@' || $3,
              'type', 'work', 'primary', true)),
            now(), now()
       from generate_series(1, $4::int) n`,
    [made.brand.id, `Q${randomHex(4)}`, domain, users],
  );
  return scim;
}

it('reads one filtered list of a brand at a time: others at once are 429 with Retry-After', async () => {
  const a = await brandWithUsers(10_000);
  const b = await brandWithUsers(50);
  const filter = encodeURIComponent('userName sw "User"');
  const [answers, other] = await Promise.all([
    Promise.all(Array.from({ length: 4 }, () => a('GET', `/Users?filter=${filter}&count=1`))),
    // another brand's list, at the same moment
    new Promise((r) => setTimeout(r, 50)).then(() => b('GET', `/Users?filter=${filter}&count=1`)),
  ]);
  const statuses = answers.map((x) => x.status).sort();
  expect(statuses).toContain(200);
  expect(statuses).toContain(429);
  expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
  const refused = answers.find((x) => x.status === 429)!;
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(refused.body).toMatchObject({ status: '429' });
  expect(other.status).toBe(200);
  expect(other.body).toMatchObject({ totalResults: 50 });
  // the place is given back: the list is answered again afterwards
  const again = await a('GET', `/Users?filter=${filter}&count=1`);
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ totalResults: 10_000 });
}, 120_000);
