import { API_ERROR_CODES, ERROR_CODES } from '@brand/shared/errors';
import { ApiError, BrandRecordsError } from './brandRecordsError';
import { API_ERROR_CLASSES, apiErrorFor, RateLimitedError } from './codeErrors';

const meta = (status: number) => ({
  status,
  requestId: 'req_1',
  rateLimit: undefined,
  etag: undefined,
  headers: new Headers(),
});

describe('API_ERROR_CLASSES', () => {
  it("has exactly one class per code of the gateway's error table", () => {
    // the console-only codes (signing in, members) never reach the public API
    expect(Object.keys(API_ERROR_CLASSES).sort()).toEqual([...API_ERROR_CODES].sort());
    const classes = new Set(Object.values(API_ERROR_CLASSES));
    expect(classes.size).toBe(Object.keys(API_ERROR_CLASSES).length);
  });

  it.each(Object.entries(API_ERROR_CLASSES))(
    '%s builds its own class, named after it',
    (code, Class) => {
      const status = ERROR_CODES[code as keyof typeof ERROR_CODES].http;
      const error = apiErrorFor({
        code,
        codeKnown: true,
        message: 'm',
        details: undefined,
        meta: meta(status),
        retryAfterSeconds: undefined,
      });
      expect(error).toBeInstanceOf(Class);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toBeInstanceOf(BrandRecordsError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(Class.name);
      expect(error).toMatchObject({ code, status, requestId: 'req_1', message: 'm' });
    },
  );

  it('puts the wait on RateLimitedError', () => {
    const error = apiErrorFor({
      code: 'rate_limited',
      codeKnown: true,
      message: 'slow down',
      details: undefined,
      meta: meta(429),
      retryAfterSeconds: 12,
    });
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterSeconds).toBe(12);
  });

  it('does not trust a code that is an Object.prototype name', () => {
    const error = apiErrorFor({
      code: 'constructor',
      codeKnown: true,
      message: 'm',
      details: undefined,
      meta: meta(400),
      retryAfterSeconds: undefined,
    });
    expect(error.constructor).toBe(ApiError);
    expect(error.code).toBe('constructor');
  });
});
