import { ApiError, ConnectionError, TimeoutError } from '../errors/brandRecordsError';
import {
  InvalidParameterError,
  RateLimitedError,
  ServiceUnavailableError,
  API_ERROR_CLASSES,
} from '../errors/codeErrors';
import { errorBody, type StubAnswer } from '../testing/fetchStub';
import { testTransport } from '../testing/testTransport';
import type { RequestSpec } from './transport';

function transport(script: StubAnswer[], over: { maxRetries?: number; timeoutMs?: number } = {}) {
  const { transport: t, requests, sleeps } = testTransport(script, over);
  return { t, stub: { requests }, sleeps };
}

const GET: RequestSpec = { method: 'GET', path: '/api/v1/payouts', idempotent: true };
const ok = { status: 200, body: { resource: 'payouts', count: 0, data: [] } };
const rateLimited = (seconds: string): StubAnswer => ({
  status: 429,
  body: errorBody('rate_limited'),
  headers: { 'retry-after': seconds },
});

describe('Transport requests', () => {
  it('sends the Bearer key, Accept, User-Agent and the query, and returns body and meta', async () => {
    const { t, stub } = transport([
      {
        status: 200,
        body: { resource: 'payouts', count: 0, data: [] },
        headers: {
          'x-request-id': 'req_123',
          ratelimit: '"brand";r=59;t=60',
          'ratelimit-policy': '"brand";q=60;w=60',
        },
      },
    ]);
    const res = await t.request({ ...GET, query: { limit: '5', cursor: undefined, since: 'a b' } });
    const req = stub.requests[0]!;
    expect(req.url.toString()).toBe('https://api.example.test/api/v1/payouts?limit=5&since=a+b');
    expect(req.headers.get('authorization')).toBe('Bearer bk_live_test');
    expect(req.headers.get('accept')).toBe('application/json');
    expect(req.headers.get('user-agent')).toBe('test-agent');
    expect(req.headers.get('content-type')).toBeNull();
    expect(res.body).toEqual({ resource: 'payouts', count: 0, data: [] });
    expect(res.meta).toMatchObject({
      status: 200,
      requestId: 'req_123',
      rateLimit: { policy: 'brand', limit: 60, remaining: 59, reset: 60, window: 60 },
    });
  });

  it('sends JSON bodies with Content-Type', async () => {
    const { t, stub } = transport([{ status: 201, body: { id: 'pln_1' } }]);
    await t.request({ method: 'POST', path: '/x', body: { a: 1 }, idempotent: true });
    expect(stub.requests[0]).toMatchObject({ method: 'POST', body: { a: 1 } });
    expect(stub.requests[0]!.headers.get('content-type')).toBe('application/json');
  });
});

describe('Transport retries', () => {
  it('waits out a 429 for at least Retry-After and then succeeds', async () => {
    const { t, stub, sleeps } = transport([rateLimited('7'), ok]);
    await expect(t.request(GET)).resolves.toMatchObject({ meta: { status: 200 } });
    expect(stub.requests).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(7_000);
  });

  it('honours an HTTP-date Retry-After on 503', async () => {
    const { t, sleeps } = transport([
      {
        status: 503,
        body: errorBody('service_unavailable'),
        headers: { 'retry-after': 'Sun, 22 Nov 2026 10:00:03 GMT' },
      },
      ok,
    ]);
    await t.request(GET);
    expect(sleeps[0]).toBeGreaterThanOrEqual(3_000);
  });

  it('gives up after maxRetries and throws the last error, typed, with the wait', async () => {
    const { t, stub, sleeps } = transport([rateLimited('2')], { maxRetries: 3 });
    const error = await t.request(GET).catch((e: unknown) => e);
    expect(stub.requests).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
    expect(sleeps.every((ms) => ms >= 2_000)).toBe(true);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ code: 'rate_limited', status: 429, retryAfterSeconds: 2 });
  });

  it('with maxRetries 0 never retries', async () => {
    const { t, stub } = transport([rateLimited('1'), ok], { maxRetries: 0 });
    await expect(t.request(GET)).rejects.toBeInstanceOf(RateLimitedError);
    expect(stub.requests).toHaveLength(1);
  });

  it('throws at once when Retry-After is longer than it waits by itself', async () => {
    const { t, stub, sleeps } = transport([rateLimited('3600'), ok]);
    await expect(t.request(GET)).rejects.toMatchObject({ retryAfterSeconds: 3600 });
    expect(stub.requests).toHaveLength(1);
    expect(sleeps).toHaveLength(0);
  });

  it.each([
    [400, 'invalid_parameter'],
    [401, 'invalid_key'],
    [403, 'insufficient_permission'],
    [404, 'unknown_resource'],
    [409, 'request_conflict'],
    [422, 'pending_plan_limit'],
    [500, 'internal_error'],
  ])('never retries %i (%s)', async (code, errorCode) => {
    const { t, stub, sleeps } = transport([{ status: code, body: errorBody(errorCode) }, ok]);
    const error = await t.request(GET).catch((e: unknown) => e);
    expect(stub.requests).toHaveLength(1);
    expect(sleeps).toHaveLength(0);
    expect(error).toBeInstanceOf(API_ERROR_CLASSES[errorCode as keyof typeof API_ERROR_CLASSES]);
  });

  it('retries a connection failure of a GET with backoff, then throws ConnectionError', async () => {
    const { t, stub, sleeps } = transport([{ throws: new TypeError('fetch failed') }]);
    const error = await t.request(GET).catch((e: unknown) => e);
    expect(stub.requests).toHaveLength(3);
    expect(sleeps).toEqual([250, 500]);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain('fetch failed');
  });

  it('recovers from a connection failure on retry', async () => {
    const { t, stub } = transport([{ throws: new TypeError('fetch failed') }, ok]);
    await expect(t.request(GET)).resolves.toMatchObject({ meta: { status: 200 } });
    expect(stub.requests).toHaveLength(2);
  });

  it('never retries a POST without an idempotency key: not a 429, a 503 or a lost connection', async () => {
    for (const answer of [
      rateLimited('1'),
      { status: 503, body: errorBody('service_unavailable') },
      { throws: new TypeError('fetch failed') },
    ] as StubAnswer[]) {
      const { t, stub, sleeps } = transport([answer, ok]);
      await expect(
        t.request({ method: 'POST', path: '/x', body: {}, idempotent: false }),
      ).rejects.toBeInstanceOf(Error);
      expect(stub.requests).toHaveLength(1);
      expect(sleeps).toHaveLength(0);
    }
  });

  it('times out each attempt (TimeoutError) and retries it', async () => {
    const { t, stub } = transport([{ hang: true }], { timeoutMs: 30, maxRetries: 1 });
    const error = await t.request(GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ timeoutMs: 30 });
    expect(stub.requests).toHaveLength(2);
  });

  it("ends at once on the caller's abort, without retrying", async () => {
    const { t, stub } = transport([{ hang: true }], { timeoutMs: 5_000 });
    const controller = new AbortController();
    const pending = t.request({ ...GET, signal: controller.signal }).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 10);
    const error = await pending;
    // The signal's own reason (a DOMException AbortError), not a ConnectionError to retry.
    expect((error as Error).name).toBe('AbortError');
    expect(error).not.toBeInstanceOf(ConnectionError);
    expect(stub.requests).toHaveLength(1);
  });
});

describe('Transport errors', () => {
  it('carries code, message, request id, status and details from the body', async () => {
    const details = [{ field: 'limit', message: 'must be from 1 to 200' }];
    const { t } = transport([
      {
        status: 400,
        body: errorBody('invalid_parameter', 'limit: must be from 1 to 200', { details }),
        headers: { 'x-request-id': 'req_from_header' },
      },
    ]);
    const error = await t.request(GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidParameterError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      name: 'InvalidParameterError',
      code: 'invalid_parameter',
      message: 'limit: must be from 1 to 200',
      requestId: 'req_from_body',
      status: 400,
      details,
    });
  });

  it('types an error without a JSON body by its status, and keeps unknown codes', async () => {
    const html = await transport([{ status: 503, body: '<html>busy</html>' }], { maxRetries: 0 })
      .t.request(GET)
      .catch((e: unknown) => e);
    expect(html).toBeInstanceOf(ServiceUnavailableError);
    expect(html).toMatchObject({ code: 'service_unavailable', status: 503 });

    const teapot = await transport([{ status: 418, body: errorBody('brand_new_code') }])
      .t.request(GET)
      .catch((e: unknown) => e);
    expect(teapot).toBeInstanceOf(ApiError);
    expect(teapot).toMatchObject({ name: 'ApiError', code: 'brand_new_code', status: 418 });

    const bare = await transport([{ status: 502, body: '' }], { maxRetries: 0 })
      .t.request(GET)
      .catch((e: unknown) => e);
    expect(bare).toMatchObject({ name: 'ApiError', code: 'http_502', status: 502 });
  });

  it('reports a 2xx body that is not JSON as an ApiError', async () => {
    const error = await transport([{ status: 200, body: 'not json' }])
      .t.request(GET)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_response', status: 200 });
  });
});
