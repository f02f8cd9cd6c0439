import { status } from '@grpc/grpc-js';
import {
  API_ERROR_CODES,
  ERROR_CODES,
  GATEWAY_ERROR_CODES,
  gatewayCodesOfStatus,
  grpcStatusOf,
  HTTP_LAYER_CODES,
  httpStatusOf,
  isErrorCode,
  type ErrorCode,
} from './index';

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

describe('ERROR_CODES', () => {
  it.each(CODES)('%s has an HTTP error status and a failing gRPC status', (code) => {
    expect(httpStatusOf(code)).toBeGreaterThanOrEqual(400);
    expect(httpStatusOf(code)).toBeLessThan(600);
    expect(Object.values(status)).toContain(grpcStatusOf(code));
    expect(grpcStatusOf(code)).not.toBe(status.OK);
  });

  it('maps the contract and design codes to their HTTP statuses', () => {
    const expected: Partial<Record<ErrorCode, number>> = {
      missing_key: 401,
      invalid_key: 401,
      insufficient_permission: 403,
      unknown_resource: 404,
      invalid_parameter: 400,
      invalid_cursor: 400,
      validation_failed: 400,
      request_conflict: 409,
      pending_plan_limit: 422,
      rate_limited: 429,
      internal_error: 500,
      service_unavailable: 503,
    };
    for (const [code, http] of Object.entries(expected)) {
      expect([code, httpStatusOf(code as ErrorCode)]).toEqual([code, http]);
    }
  });

  it('keeps the gRPC status consistent with the HTTP class', () => {
    // google/rpc/code.proto "HTTP Mapping" for the statuses we use
    const byHttp: Record<number, status[]> = {
      // OUT_OF_RANGE is code.proto's 400 too: an events-feed position past the feed's head
      400: [status.INVALID_ARGUMENT, status.OUT_OF_RANGE],
      401: [status.UNAUTHENTICATED],
      403: [status.PERMISSION_DENIED],
      404: [status.NOT_FOUND],
      405: [status.UNIMPLEMENTED],
      // 408, 417 and 431 are the HTTP layer's refusals of the client's request; they never
      // travel over gRPC, and INVALID_ARGUMENT is the client's fault as 413 and 415 are
      408: [status.INVALID_ARGUMENT],
      409: [status.ALREADY_EXISTS, status.ABORTED],
      // code.proto maps OUT_OF_RANGE to 400; an events-feed position past the kept history is
      // 410 Gone over HTTP (it will never be valid again), OUT_OF_RANGE over gRPC
      410: [status.OUT_OF_RANGE],
      413: [status.INVALID_ARGUMENT],
      415: [status.INVALID_ARGUMENT],
      417: [status.INVALID_ARGUMENT],
      422: [status.FAILED_PRECONDITION],
      429: [status.RESOURCE_EXHAUSTED],
      431: [status.INVALID_ARGUMENT],
      500: [status.INTERNAL],
      503: [status.UNAVAILABLE],
    };
    for (const code of CODES) {
      expect([code, byHttp[httpStatusOf(code)]]).toEqual([
        code,
        expect.arrayContaining([grpcStatusOf(code)]),
      ]);
    }
  });
});

describe('isErrorCode', () => {
  it('accepts every code', () => {
    for (const code of CODES) expect(isErrorCode(code)).toBe(true);
  });

  it.each(['nope', 'INVALID_KEY', '', 'toString', '__proto__', 'constructor', 401, null])(
    'refuses %p',
    (value) => expect(isErrorCode(value)).toBe(false),
  );
});

describe('GATEWAY_ERROR_CODES (issue 35: the request log filter lists only these)', () => {
  it('holds the codes the gateway answers and none only admin RPCs answer', () => {
    expect(GATEWAY_ERROR_CODES).toEqual([
      'missing_key',
      'invalid_key',
      'insufficient_permission',
      'forbidden_origin',
      'network_not_allowed',
      'unknown_resource',
      'not_found',
      'method_not_allowed',
      'invalid_parameter',
      'invalid_cursor',
      'malformed_request',
      'validation_failed',
      'position_beyond_head',
      'request_conflict',
      'cursor_expired',
      'payload_too_large',
      'unsupported_media_type',
      'pending_plan_limit',
      'rate_limited',
      'internal_error',
      'service_unavailable',
    ]);
    for (const code of GATEWAY_ERROR_CODES) expect(API_ERROR_CODES).toContain(code);
  });

  it("leaves out the HTTP layer's refusals (the request log never holds them), which the statuses list", () => {
    expect(HTTP_LAYER_CODES).toEqual([
      'request_timeout',
      'expectation_failed',
      'headers_too_large',
    ]);
    for (const code of HTTP_LAYER_CODES) {
      expect(API_ERROR_CODES).toContain(code);
      expect(GATEWAY_ERROR_CODES).not.toContain(code);
      expect(gatewayCodesOfStatus(httpStatusOf(code))).toEqual([code]);
    }
  });

  it('names the codes of a status', () => {
    expect(gatewayCodesOfStatus(429)).toEqual(['rate_limited']);
    expect(gatewayCodesOfStatus(401)).toEqual(['missing_key', 'invalid_key']);
    expect(gatewayCodesOfStatus(422)).toEqual(['pending_plan_limit']);
  });
});
