// Single sign-on that cannot reach inside the network. A brand owner names the issuer, and the
// issuer's discovery document names every other endpoint: all of it is a tenant's say-so, so every
// request records makes to a provider passes the receivers' egress policy (public addresses, the
// pinned lookup, https; loopback only with the local-only setting) and stays on the issuer's
// origin. The probe's attacks, against real records processes: a loopback issuer on a strict
// records, a token endpoint on another loopback port (nothing may arrive there: before the fix the
// token POST went there with the client's Basic credentials and the PKCE verifier), `javascript:`
// and `data:` authorization endpoints, oversized and slow documents. Only loopback addresses are
// ever targets here; the private, link-local and metadata forms are the unit tests'
// of the shared egress policy (services/webhooks/src/egress/urlPolicy.test.ts), which need no
// network.
import { randomBytes } from 'node:crypto';
import {
  createConsoleClient,
  randomHex,
  startHostileIssuer,
  startRecords,
  startStack,
  TEST_ADMIN_TOKEN,
  type ConsoleClient,
  type HostileIssuer,
  type RecordsProcess,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
/** Records without the local-only setting: what production runs. */
let strict: RecordsProcess;
/** The stack's records, with the local-only setting (a provider on this machine admitted). */
let local: ConsoleClient;
/** The same records as operators call it (connections), with the admin token. */
let localAdmin: ConsoleClient;
let strictClient: ConsoleClient;
let issuer: HostileIssuer;
/** Another origin on loopback: the endpoint a hostile document points at. */
let trap: HostileIssuer;

const ORIGIN = 'http://127.0.0.1:1';

beforeAll(async () => {
  stack = await startStack({
    gateways: 0,
    recordsEnv: { WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true' },
  });
  strict = await startRecords({
    databaseUrl: stack.db.url,
    redisKeyPrefix: stack.redisKeyPrefix,
  });
  local = createConsoleClient(stack.records.address);
  localAdmin = createConsoleClient(stack.records.address, TEST_ADMIN_TOKEN);
  strictClient = createConsoleClient(strict.address, TEST_ADMIN_TOKEN);
  issuer = await startHostileIssuer();
  trap = await startHostileIssuer();
}, 120_000);
afterAll(async () => {
  local?.close();
  localAdmin?.close();
  strictClient?.close();
  await issuer?.close();
  await trap?.close();
  await strict?.stop('SIGTERM', 5_000);
  await stack?.close();
});
beforeEach(() => {
  issuer.received.length = 0;
  trap.received.length = 0;
});

async function newBrand(): Promise<string> {
  const made = await stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner@egress-${randomHex(4)}.test`,
  });
  return made.brand.id;
}

const connect = (client: ConsoleClient, brandId: string, issuerUrl: string) =>
  client.sso('setSsoConnection', {
    brand_id: brandId,
    issuer: issuerUrl,
    // one client per brand: records keeps discovered providers per issuer and client
    client_id: `console-${brandId}`,
    client_secret: 'the-client-secret',
    // a domain of its own: a verified domain belongs to one brand
    allowed_domains: [`${brandId.slice(3).toLowerCase()}.example.com`],
    enabled: true,
    session_token: '',
    if_updated_at: '',
  });

/** A brand connected to the hostile issuer while it still served a benign document. */
async function connectedBrand(): Promise<string> {
  const brandId = await newBrand();
  issuer.serve({ document: issuer.benignDocument() });
  await connect(localAdmin, brandId, issuer.origin);
  // Its domain counts as proven (the DNS proof has its own tests, sso.verifiedDomains.test.ts):
  // a connection without a verified domain is not even started.
  await stack.db.pool.query(
    `update records.sso_domains set state = 'verified', verified_at = now() where brand_id = $1`,
    [brandId],
  );
  return brandId;
}

const binding = () => randomBytes(32).toString('base64url');

/** How a call was refused (code and sentence), or undefined when it was answered. */
const refusalOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (err: { code?: string; message?: string }) => ({ code: err.code, message: err.message ?? '' }),
  );

const begin = (brandId: string, browserBinding: string) =>
  local.sso('beginSsoSignIn', {
    email: '',
    brand_id: brandId,
    origin: ORIGIN,
    browser_binding: browserBinding,
    client_key: `k-${randomHex(4)}`,
  });

describe('the issuer itself', () => {
  it('is refused on loopback without the local-only setting, before any request is made', async () => {
    const brandId = await newBrand();
    issuer.serve({ document: issuer.benignDocument() });
    const port = new URL(issuer.origin).port;
    for (const url of [
      issuer.origin,
      `http://localhost:${port}`,
      `https://127.0.0.1:${port}`,
      `https://[::1]:${port}`,
    ]) {
      const started = Date.now();
      const refused = await refusalOf(connect(strictClient, brandId, url));
      expect(refused?.code).toBe('validation_failed');
      // a sentence for the owner, without our field path ("issuer: ")
      expect(refused?.message).toMatch(/^The issuer .*(loopback|Loopback|must use https)/);
      // decided from the address, not by waiting on a connection (no timing oracle)
      expect(Date.now() - started).toBeLessThan(1_000);
    }
    expect(issuer.received).toEqual([]);
  });
});

describe('what a discovery document names', () => {
  it('never sends the token request to another origin: the document is refused, nothing arrives there', async () => {
    const brandId = await connectedBrand();
    const hostile = {
      ...issuer.benignDocument(),
      token_endpoint: `${trap.origin}/token`,
    };
    issuer.serve({ document: hostile });
    // A connection saved before the document changed: signing in reads it afresh and refuses.
    const browser = binding();
    let state: string | undefined;
    try {
      const begun = await begin(brandId, browser);
      state = new URL(begun.authorization_url).searchParams.get('state') ?? undefined;
    } catch (err) {
      expect(err).toMatchObject({ code: 'sso_provider_refused' });
    }
    if (state) {
      // what the old code did next: the callback's code went to the document's token endpoint
      await local
        .sso('finishSsoSignIn', {
          origin: ORIGIN,
          callback_url: `${ORIGIN}/sign-in/sso/callback?code=stolen&state=${state}`,
          browser_binding: browser,
          client: { user_agent: 'test', address: '127.0.0.1' },
        })
        .catch(() => undefined);
    }
    expect(
      trap.received.map((r) => `${r.method} ${r.path} ${r.headers.authorization ?? ''} ${r.body}`),
    ).toEqual([]);
    // Saving the document now is refused, naming the endpoint and why.
    const refused = await refusalOf(connect(localAdmin, brandId, issuer.origin));
    expect(refused?.code).toBe('sso_provider_refused');
    expect(refused?.message).toContain('token_endpoint');
    expect(state).toBeUndefined();
  });

  it.each([
    ['javascript:', 'javascript:alert(document.domain)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['plain http elsewhere', 'http://login.example.com/auth'],
  ])('refuses a %s authorization endpoint with a stable 4xx code', async (_name, endpoint) => {
    const brandId = await connectedBrand();
    issuer.serve({ document: { ...issuer.benignDocument(), authorization_endpoint: endpoint } });
    const refused = await refusalOf(begin(brandId, binding()));
    expect(refused?.code).toBe('sso_provider_refused');
    expect(refused?.message).toContain('authorization_endpoint');
    expect((await refusalOf(connect(localAdmin, brandId, issuer.origin)))?.code).toBe(
      'sso_provider_refused',
    );
  });

  it('refuses an oversized document without reading it all', async () => {
    const brandId = await connectedBrand();
    issuer.serve({ document: issuer.benignDocument(), padBytes: 3_000_000 });
    const refused = await refusalOf(begin(brandId, binding()));
    expect(refused?.code).toBe('sso_provider_refused');
    expect(refused?.message).toMatch(/larger than/);
  });

  it('refuses a document slow to answer within a bounded time, with a 4xx code', async () => {
    const brandId = await connectedBrand();
    issuer.serve({ document: issuer.benignDocument(), delayMs: 8_000 });
    const started = Date.now();
    const refused = await refusalOf(begin(brandId, binding()));
    expect(refused?.code).toBe('sso_provider_refused');
    expect(refused?.message).toMatch(/did not answer within/);
    expect(Date.now() - started).toBeLessThan(6_000);
  });
});
