// `npm run up`'s seeding, run twice against the local stack as up starts it (localStackDriver:
// the same shell functions, scripts/lib/demoSeed.sh, in up's order). Up is safe to run again, so
// the second run must succeed and leave what the first made: one demo brand, one live demo key,
// the local OpenID provider connected once as the brand's single sign-on with its domain proven
// by DNS, one example receiver. The demo key must answer the request up prints.
//
// Why a test of its own: the quick start's first command is the first thing a person runs, and
// CI runs only the second. On 2026-12-02 the seeding failed on every fresh machine for a day
// (connectDemoBrand.cjs left SetSsoConnection's new if_updated_at out, encoded as the text
// 'undefined', and records refused the save as a stale read) with every test passing.
import { ConsoleHttp } from '../../console/test/browserlessClient';
import { authorizationUrlOf, IdpBrowser } from '../../console/test/ssoActors';
import { useLocalStack } from './localStackDriver';

/** up's seeding steps, in up's order, then the seeding steps again as a second `npm run up` runs them. */
const STEPS = `
start_local_services
seed_demo_data
start_dev_idp "$demo_owner" "$demo_member"
start_dev_dns
connect_demo_sso
register_example_receiver
start_example_receiver
echo "seeded: $demo_brand_id $demo_key $receiver_id"
seed_demo_data
connect_demo_sso
register_example_receiver
echo "seeded: $demo_brand_id $demo_key $receiver_id"
`;

const stack = useLocalStack(STEPS);

/** Each run's brand id, demo key and example receiver id, as the driver printed them. */
const runs = () =>
  [
    ...stack()
      .output()
      .matchAll(/^seeded: (\S+) (\S+) (\S+)$/gm),
  ].map((m) => ({
    brandId: m[1]!,
    key: m[2]!,
    receiverId: m[3]!,
  }));

it('seeds twice, the second run reusing the brand, the demo key and the example receiver', () => {
  const [first, second] = runs();
  expect(runs()).toHaveLength(2);
  expect(first!.brandId).toMatch(/^br_/);
  expect(first!.key).toMatch(/^bk_live_/);
  expect(second).toEqual(first);
});

it('leaves one live demo key, which answers the request up prints', async () => {
  const { brandId, key } = runs()[0]!;
  const { rows } = await stack().db.pool.query<{ n: string }>(
    `select count(*) as n from records.api_keys
      where brand_id = $1 and revoked_at is null and (expires_at is null or expires_at > now())`,
    [brandId],
  );
  expect(Number(rows[0]!.n)).toBe(1);
  const res = await fetch(`http://127.0.0.1:${stack().env.GATEWAY_PORT}/api/v1/campaigns?limit=2`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
});

it("connects the local OpenID provider once as the brand's single sign-on, its domain proven", async () => {
  const { brandId } = runs()[0]!;
  const connection = await stack().db.pool.query(
    `select issuer, client_id, enabled from records.sso_connections where brand_id = $1`,
    [brandId],
  );
  expect(connection.rows).toEqual([
    { issuer: stack().env.DEV_IDP_ISSUER, client_id: 'brand-records-console', enabled: true },
  ]);
  const domains = await stack().db.pool.query(
    `select domain, state from records.sso_domains where brand_id = $1`,
    [brandId],
  );
  expect(domains.rows).toEqual([{ domain: 'demo-brand.test', state: 'verified' }]);
  // the second run found it connected and left it: no change, so no activity of its own
  const activity = await stack().db.pool.query<{ action: string }>(
    `select action from records.activity where brand_id = $1 and action like 'brand.sso%'
      order by created_at`,
    [brandId],
  );
  expect(activity.rows.map((r) => r.action)).toEqual([
    'brand.sso_connected',
    'brand.sso_domain_verified',
  ]);
});

it("lets the demo owner sign in through the local provider, as up's banner says", async () => {
  const { brandId } = runs()[0]!;
  const consoleUrl = stack().env.CONSOLE_PUBLIC_URL!;
  const http = new ConsoleHttp(consoleUrl);
  const owner = 'owner@demo-brand.test';
  const started = await http.post('/sign-in/sso', { email: owner, brand: '' });
  expect(started.status).toBe(200);
  const { callbackUrl } = await new IdpBrowser().authorize(
    authorizationUrlOf(started.body),
    consoleUrl,
    { email: owner, password: stack().env.DEV_IDP_PASSWORD! },
  );
  expect(callbackUrl).toBeDefined();
  const signedIn = await http.get(callbackUrl!.slice(consoleUrl.length));
  expect(signedIn.location).toBe(`/brands/${brandId}`);
  const home = await http.get(signedIn.location!);
  expect(home.status).toBe(200);
  expect(home.body).toContain(owner);
});

it('registers the example receiver once', async () => {
  const { brandId, receiverId } = runs()[0]!;
  const { rows } = await stack().db.pool.query<{ id: string }>(
    `select id from webhooks.receivers where brand_id = $1`,
    [brandId],
  );
  expect(rows.map((r) => r.id)).toEqual([receiverId]);
});
