import { Metadata, status } from '@grpc/grpc-js';
import { SCIMMY } from 'scimmy-routers';
import { ServiceCallError, toCallError } from '../clients/memberCaller';
import { isInputError, scimRefusalOf } from './scimErrors';

const refused = (grpcStatus: status, retryAfter?: number) =>
  scimRefusalOf(new ServiceCallError(grpcStatus, 'some_code', 'Records said no.', retryAfter));

describe('scimRefusalOf', () => {
  it('answers records refusals with the SCIM status a provider understands', () => {
    const statusOf = (s: status) => (refused(s).error as unknown as { status: number }).status;
    expect(statusOf(status.INVALID_ARGUMENT)).toBe(400);
    expect(statusOf(status.ALREADY_EXISTS)).toBe(409);
    expect(statusOf(status.NOT_FOUND)).toBe(404);
    expect(statusOf(status.UNAUTHENTICATED)).toBe(401);
    expect(statusOf(status.FAILED_PRECONDITION)).toBe(409);
    // A write from a stale read (a PATCH racing another change, an old If-Match): 412.
    const stale = scimRefusalOf(
      new ServiceCallError(status.FAILED_PRECONDITION, 'precondition_failed', 'Stale.', undefined),
    );
    expect((stale.error as unknown as { status: number }).status).toBe(412);
    expect(stale.override).toBeUndefined();
    const limited = scimRefusalOf(
      new ServiceCallError(status.RESOURCE_EXHAUSTED, 'rate_limited', 'Slow down.', 7),
    );
    expect(limited.override).toEqual({ status: 429, retryAfterSeconds: 7 });
  });

  // grpc-js refuses an answer past the client's receive limit as RESOURCE_EXHAUSTED too (a page
  // of groups with thousands of members each): a 429 would have the provider retry the same
  // request forever. It is tooMany (413 to scimmy, answered 400 by the endpoint), to ask less.
  it('answers an answer too large for the console tooMany, not 429', () => {
    const tooLarge = scimRefusalOf(
      toCallError(
        Object.assign(new Error('Received message larger than max'), {
          code: status.RESOURCE_EXHAUSTED,
          details: 'Received message larger than max (29000000 vs 16777216)',
          metadata: new Metadata(),
        }),
      ),
    );
    expect(tooLarge.override).toBeUndefined();
    expect(tooLarge.error).toMatchObject({ status: 413, scimType: 'tooMany' });
    expect(tooLarge.error.message).toMatch(/count|members/);
  });

  // scimmy answers an error it does not know as 404 "Resource not found": to a DELETE, a
  // provider then takes the user for gone and stops retrying.
  it('answers every other failure 503 with Retry-After, so the provider retries', () => {
    for (const s of [
      status.UNAVAILABLE,
      status.DEADLINE_EXCEEDED,
      status.INTERNAL,
      status.UNKNOWN,
      status.ABORTED,
      status.CANCELLED,
      status.UNIMPLEMENTED,
      status.DATA_LOSS,
    ]) {
      expect({ s, override: refused(s).override }).toEqual({
        s,
        override: { status: 503, retryAfterSeconds: 5 },
      });
    }
    expect(refused(status.UNIMPLEMENTED, 60).override).toEqual({
      status: 503,
      retryAfterSeconds: 60,
    });
    expect(scimRefusalOf(new Error('socket hang up')).override).toEqual({
      status: 503,
      retryAfterSeconds: 5,
    });
  });
});

describe('scimRefusalOf, for what was not records', () => {
  it("passes scimmy's own errors on, and reads a TypeError as bad input (400), not an outage", () => {
    const own = new SCIMMY.Types.Error(400, 'invalidValue', 'members[0] must be an object.');
    expect(scimRefusalOf(own)).toEqual({ error: own });
    const typed = scimRefusalOf(new TypeError("Cannot read properties of null (reading 'value')"));
    expect(typed.override).toBeUndefined();
    expect(typed.error).toMatchObject({ status: 400, scimType: 'invalidValue' });
    expect(typed.error.message).not.toMatch(/properties of null/);
  });
});

describe('isInputError', () => {
  it('is what scimmy throws on input it does not check (a TypeError), not our own failures', () => {
    expect(isInputError(new TypeError('Cannot convert undefined or null to object'))).toBe(true);
    expect(isInputError(new RangeError('Maximum call stack size exceeded'))).toBe(false);
    expect(isInputError(new Error('x'))).toBe(false);
  });
});
