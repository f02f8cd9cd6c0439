import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { toCallError } from './memberCaller';

const serviceError = (code: status, details = 'x'): ServiceError =>
  Object.assign(new Error(details), { code, details, metadata: new Metadata() });

describe('toCallError', () => {
  // A rolling upgrade that rolls the console first: a page calling a method the previous records
  // lacks (SetKeyNetworks, say) answered 500 until records was rolled too (a review, 2026-11-30).
  it('reads a method the service does not have yet as a passing outage, not a failure of ours', () => {
    const err = toCallError(serviceError(status.UNIMPLEMENTED, 'Method not found'));
    expect(err).toMatchObject({
      grpcStatus: status.UNIMPLEMENTED,
      code: 'service_unavailable',
      retryAfterSeconds: 60,
    });
    expect(err.message).toContain('being updated');
  });

  it('keeps a failure without a code a failure of ours, and an outage an outage', () => {
    expect(toCallError(serviceError(status.INTERNAL))).toMatchObject({ code: 'internal_error' });
    expect(toCallError(serviceError(status.UNAVAILABLE))).toMatchObject({
      grpcStatus: status.UNAVAILABLE,
      code: 'service_unavailable',
    });
  });

  // A page of groups with thousands of members each passed the client's receive limit, which
  // grpc-js reports as RESOURCE_EXHAUSTED, the status of a rate limit: SCIM answered 429.
  it('keeps an answer too large apart from a rate limit', () => {
    expect(toCallError(serviceError(status.RESOURCE_EXHAUSTED))).toMatchObject({
      grpcStatus: status.OUT_OF_RANGE,
      code: 'answer_too_large',
    });
    const limited = serviceError(status.RESOURCE_EXHAUSTED, 'Slow down.');
    limited.metadata.set('x-error-code', 'rate_limited');
    expect(toCallError(limited)).toMatchObject({
      grpcStatus: status.RESOURCE_EXHAUSTED,
      code: 'rate_limited',
    });
  });

  it("keeps the service's own code and sentence", () => {
    const e = serviceError(status.FAILED_PRECONDITION, 'No.');
    e.metadata.set('x-error-code', 'key_policy');
    expect(toCallError(e)).toMatchObject({ code: 'key_policy', message: 'No.' });
  });
});
