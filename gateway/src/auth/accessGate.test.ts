import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '@brand/shared/errors';
import { BrandTier, type AuthenticateKeyResponse } from '@brand/proto/access/v1';
import { hashApiKey } from '@brand/shared/keys';
import type { RecordsApi } from '../clients/recordsClient';
import { AdmissionLedger } from '../ratelimit/admissionLedger';
import { MemorySlidingWindowLimiter } from '../ratelimit/memoryLimiter';
import { AccessGate } from './accessGate';
import type { AuthFailureReason } from '../http/authFailureReason';
import { Authenticator } from './authenticator';
import { KeyCache } from './keyCache';

const VALID = `bk_live_${'V'.repeat(40)}`;
/** A valid key that works only from 198.51.100.0/24 (issue 63). */
const FENCED = `bk_live_${'F'.repeat(40)}`;
const WRONG = (i: number) => `bk_live_${String(i).padStart(40, 'w')}`;

/** A records API whose only job here is to count lookups and know one key. */
function recordsStub(): { api: RecordsApi; lookups: () => number } {
  let lookups = 0;
  const api = {
    authenticateKey: async (hash: string): Promise<AuthenticateKeyResponse> => {
      lookups += 1;
      await new Promise((r) => setTimeout(r, 5));
      const fenced = hash === hashApiKey(FENCED);
      if (hash !== hashApiKey(VALID) && !fenced)
        throw new AppError('invalid_key', 'The API key is not valid.');
      return {
        key_id: fenced ? 'key_2' : 'key_1',
        brand_id: 'br_1',
        tier: BrandTier.BRAND_TIER_PLUS,
        permissions: [],
        allowed_networks: fenced ? ['198.51.100.0/24'] : [],
      };
    },
  } as unknown as RecordsApi;
  return { api, lookups: () => lookups };
}

type Request = IncomingMessage;
type Response = ServerResponse;

/** A request as node hands it over: its headers and its socket's peer address. */
const request = (authorization: string | undefined, remoteAddress = '203.0.113.9'): Request =>
  ({
    headers: authorization === undefined ? {} : { authorization },
    socket: { remoteAddress },
  }) as unknown as Request;

function exchange(
  key: string,
  from?: string,
): { req: Request; res: Response; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  const req = request(`Bearer ${key}`, from);
  const res = {
    locals: {},
    setHeader: (k: string, v: string) => (headers[k] = v),
    hasHeader: (k: string) => k in headers,
  };
  return { req, res: res as unknown as Response, headers };
}

function gate(anonymousLimit: number, cacheTtlMs = 60_000) {
  const stub = recordsStub();
  const limiter = new MemorySlidingWindowLimiter({
    ledger: new AdmissionLedger({ maxKeys: 100 }),
    instances: 1,
  });
  const cache = new KeyCache({ ttlMs: cacheTtlMs, maxEntries: 100 });
  const failures: AuthFailureReason[] = [];
  const g = new AccessGate(
    new Authenticator(stub.api, cache, 'live'),
    limiter,
    anonymousLimit,
    1,
    (reason) => failures.push(reason),
  );
  return { g, stub, cache, failures };
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (err: AppError) => err.code,
  );

describe('AccessGate per-address budget', () => {
  it('concurrent guesses from one address cause at most `budget` lookups', async () => {
    const { g, stub } = gate(5);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        outcome(g.identify(exchange(WRONG(i)).req, exchange(WRONG(i)).res)),
      ),
    );
    expect(stub.lookups()).toBe(5);
    expect(results.filter((r) => r === 'invalid_key')).toHaveLength(5);
    expect(results.filter((r) => r === 'rate_limited')).toHaveLength(45);
  });

  it('a valid key gets its reserved unit back, so valid traffic never spends the address budget', async () => {
    const { g } = gate(2);
    const { req, res } = exchange(VALID);
    await expect(g.identify(req, res)).resolves.toMatchObject({ brandId: 'br_1' });
    // two failures still fit: the valid lookup refunded its unit
    expect(await outcome(g.identify(exchange(WRONG(1)).req, exchange(WRONG(1)).res))).toBe(
      'invalid_key',
    );
    expect(await outcome(g.identify(exchange(WRONG(2)).req, exchange(WRONG(2)).res))).toBe(
      'invalid_key',
    );
    expect(await outcome(g.identify(exchange(WRONG(3)).req, exchange(WRONG(3)).res))).toBe(
      'rate_limited',
    );
  });

  it('concurrent requests with one uncached valid key share one lookup and spend no address budget', async () => {
    const { g, stub } = gate(1);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => {
        const { req, res } = exchange(VALID);
        return outcome(g.identify(req, res));
      }),
    );
    expect(results).toEqual(Array.from({ length: 20 }, () => 'ok'));
    expect(stub.lookups()).toBe(1);
    expect(await outcome(g.identify(exchange(WRONG(1)).req, exchange(WRONG(1)).res))).toBe(
      'invalid_key',
    );
  });

  // Issue 7, defect 4: strangers spending an address's budget must not lock out a key that
  // was verified earlier, once its cache entry has expired.
  it('a key proven valid keeps working after its cache entry expires while guesses from its address are refused', async () => {
    const { g, stub } = gate(3, 5);
    expect(await outcome(g.identify(exchange(VALID).req, exchange(VALID).res))).toBe('ok');
    const guesses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        outcome(g.identify(exchange(WRONG(i)).req, exchange(WRONG(i)).res)),
      ),
    );
    expect(guesses.filter((r) => r === 'invalid_key')).toHaveLength(3);
    expect(guesses.filter((r) => r === 'rate_limited')).toHaveLength(27);
    await new Promise((r) => setTimeout(r, 20)); // the cache entry (5 ms) has expired
    const before = stub.lookups();
    expect(await outcome(g.identify(exchange(VALID).req, exchange(VALID).res))).toBe('ok');
    expect(stub.lookups()).toBe(before + 1); // looked up again (a revocation would hold)
    expect(await outcome(g.identify(exchange(WRONG(99)).req, exchange(WRONG(99)).res))).toBe(
      'rate_limited',
    );
  });

  it('a revoked key loses its exemption: the next lookups reserve address budget again', async () => {
    const { g, cache } = gate(2, 5);
    expect(await outcome(g.identify(exchange(VALID).req, exchange(VALID).res))).toBe('ok');
    cache.invalidate(hashApiKey(VALID)); // the revocation announcement
    expect(cache.isProven(hashApiKey(VALID))).toBe(false);
  });

  it('a missing header is charged to the address and answered 429 past the budget', async () => {
    const { g } = gate(1);
    const first = exchange('');
    const noHeader = request(undefined);
    expect(await outcome(g.identify(noHeader, first.res))).toBe('missing_key');
    expect(await outcome(g.identify(noHeader, exchange('').res))).toBe('rate_limited');
  });
});

describe('AccessGate failure reasons', () => {
  const withHeader = (header: string | undefined) => {
    const { res } = exchange('');
    return { req: request(header), res };
  };

  it('reports each refused key once, with why it was refused', async () => {
    const { g, failures } = gate(100);
    const cases: Array<[string | undefined, AuthFailureReason]> = [
      [undefined, 'missing'],
      ['Bearer ', 'missing'],
      [`Basic ${VALID}`, 'wrong_scheme'],
      ['Bearer nope', 'malformed'],
      [`Bearer bk_test_${'V'.repeat(40)}`, 'wrong_environment'],
      [`Bearer ${WRONG(1)}`, 'unknown_or_revoked'],
    ];
    for (const [header, reason] of cases) {
      const { req, res } = withHeader(header);
      await expect(g.identify(req, res)).rejects.toThrow();
      expect(failures.at(-1)).toBe(reason);
    }
    expect(failures).toHaveLength(cases.length);
    // an admitted key is no failure; a permission check that refuses is
    const { req, res } = exchange(VALID);
    const identity = await g.identify(req, res);
    expect(failures).toHaveLength(cases.length);
    expect(() =>
      g.requirePermission(identity, () => {
        throw new AppError('insufficient_permission', 'no');
      }),
    ).toThrow();
    expect(failures.at(-1)).toBe('forbidden_permission');
  });
});

describe('AccessGate allowed networks (issue 63)', () => {
  it('admits a key from inside its networks and refuses it from outside, from the cache', async () => {
    const { g, stub, failures } = gate(1);
    const inside = exchange(FENCED, '198.51.100.20');
    expect((await g.identify(inside.req, inside.res)).keyId).toBe('key_2');
    const mapped = exchange(FENCED, '::ffff:198.51.100.21');
    expect(await outcome(g.identify(mapped.req, mapped.res))).toBe('ok');
    const outside = exchange(FENCED, '203.0.113.9');
    let refused: unknown;
    await g.identify(outside.req, outside.res).catch((err: unknown) => (refused = err));
    expect((refused as AppError).code).toBe('network_not_allowed');
    expect((refused as AppError).message).toContain('"203.0.113.9"');
    expect(failures).toEqual(['network']);
    // the identity came from the cache: one lookup for the three requests
    expect(stub.lookups()).toBe(1);
    // charged to the address, so a key used from elsewhere is answered 429 past its budget
    expect(outside.headers['RateLimit-Policy']).toMatch(/^"anonymous"/);
    expect(await outcome(g.identify(exchange(FENCED, '203.0.113.9').req, exchange('').res))).toBe(
      'rate_limited',
    );
    // a key without networks works from anywhere
    const open = exchange(VALID, '192.0.2.1');
    expect(await outcome(g.identify(open.req, open.res))).toBe('ok');
  });
});
