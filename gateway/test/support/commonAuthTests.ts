import { request as httpRequest } from 'node:http';
import { makeBrandWithKey, type BrandWithKey, type Stack } from '@brand/testkit';

/** One authenticated route, as the shared suite calls it. */
export interface AuthenticatedRoute {
  /** e.g. "GET /api/v1/campaigns". */
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** The body of a request the route would accept (JSON), if it takes one. */
  body?: () => unknown;
  /** The stable error code of a refusal, wherever the route's error format puts it. */
  codeOf: (body: unknown) => string | undefined;
  /** Opt-in permissions the suite's keys need for an accepted request (e.g. campaigns:prepare). */
  permissions?: string[];
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * A request with exactly these raw header lines, Host included (fetch merges repeated
 * headers, so two Authorization headers need node:http's raw-header form).
 */
export function rawRequest(
  url: string,
  method: string,
  rawHeaders: string[],
  body?: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: rawHeaders }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = text;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The authentication rules every authenticated route shares (docs/contract.md#authentication, #errors; issue 7
 * defects 5 and 6), run against one route of a running gateway: missing or malformed
 * credentials, unknown, other-environment and revoked keys, brands below Plus, ambiguous
 * headers, and the headers every refusal carries.
 */
export function runCommonAuthTests(
  route: AuthenticatedRoute,
  env: () => { stack: Stack; url: string },
): void {
  describe(`authentication on ${route.name}`, () => {
    let brand: BrandWithKey;
    let url: string;

    beforeAll(async () => {
      const { stack } = env();
      url = env().url + route.path;
      brand = await makeBrandWithKey(stack.admin, {
        tier: 'enterprise',
        permissions: route.permissions,
      });
    });

    const send = (authorization: string[], extra: string[] = []): Promise<RawResponse> => {
      const body = route.body ? JSON.stringify(route.body()) : undefined;
      // raw header arrays get no automatic Host; HTTP/1.1 requires one
      const host = extra.includes('Host') ? [] : ['Host', new URL(url).host];
      const headers = [
        ...host,
        ...authorization.flatMap((a) => ['Authorization', a]),
        ...(body ? ['Content-Type', 'application/json'] : []),
        ...extra,
      ];
      return rawRequest(url, route.method, headers, body);
    };

    const expectRefusal = (res: RawResponse, status: number, code: string): void => {
      expect({ status: res.status, code: route.codeOf(res.body) }).toEqual({ status, code });
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      if (status === 401) expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="api"/);
    };

    it('accepts a valid key', async () => {
      const res = await send([`Bearer ${brand.secret}`]);
      expect(res.status).toBeLessThan(300);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    it.each([
      ['no Authorization header', []],
      ['another scheme', ['Basic dXNlcjpwYXNz']],
      ['"Bearer" with no key', ['Bearer ']],
    ])('%s is 401 missing_key', async (_, authorization) => {
      expectRefusal(await send(authorization), 401, 'missing_key');
    });

    it('a lower-case bearer scheme is 401 missing_key even with a valid key', async () => {
      expectRefusal(await send([`bearer ${brand.secret}`]), 401, 'missing_key');
    });

    it.each([
      ['an unknown well-formed key', `bk_live_${'x'.repeat(40)}`],
      ['a token that is not a key', 'not-a-key'],
      ['a key of the other environment', `bk_test_${'x'.repeat(40)}`],
    ])('%s is 401 invalid_key', async (_, key) => {
      expectRefusal(await send([`Bearer ${key}`]), 401, 'invalid_key');
    });

    it('a revoked key is 401 invalid_key', async () => {
      const { stack } = env();
      const victim = await makeBrandWithKey(stack.admin, { permissions: route.permissions });
      expect((await send([`Bearer ${victim.secret}`])).status).toBeLessThan(300);
      await stack.admin.revokeKey(victim.key.id);
      expectRefusal(await send([`Bearer ${victim.secret}`]), 401, 'invalid_key');
    });

    it('a brand below Plus is 403 insufficient_permission', async () => {
      const { stack } = env();
      const free = await makeBrandWithKey(stack.admin, {
        tier: 'plus',
        permissions: route.permissions,
      });
      await stack.admin.updateBrand({ brandId: free.brand.id, tier: 'free' });
      expectRefusal(await send([`Bearer ${free.secret}`]), 403, 'insufficient_permission');
    });

    // Issue 7, defect 5: the first of two headers silently won before.
    it('two Authorization headers are 400 malformed_request', async () => {
      const res = await send([`Bearer ${brand.secret}`, `Bearer bk_live_${'y'.repeat(40)}`]);
      expectRefusal(res, 400, 'malformed_request');
    });

    it('two Host headers are 400 malformed_request', async () => {
      const res = await send(
        [`Bearer ${brand.secret}`],
        ['Host', 'a.example', 'Host', 'b.example'],
      );
      expectRefusal(res, 400, 'malformed_request');
    });
  });
}
