import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  AppError,
  ERROR_CODE_METADATA,
  ERROR_CODES,
  ERROR_DETAILS_METADATA,
  fromServiceError,
  RETRY_AFTER_METADATA,
  grpcStatusOf,
  isAppError,
  toGrpcFailure,
  type ErrorCode,
} from './index';

/** What grpc-js hands a client for a failed call. */
function serviceError(code: status, details: string, metadata = new Metadata()): ServiceError {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), {
    code,
    details,
    metadata,
  });
}

describe('toGrpcFailure → fromServiceError', () => {
  it.each(Object.keys(ERROR_CODES) as ErrorCode[])('keeps %s, its message and details', (code) => {
    const details = [
      { field: 'limit', message: 'must be from 1 to 200' },
      { field: 'platforms.0', message: 'unknown platform' },
    ];
    const original = new AppError(code, `Refused: ${code} (é, "quotes", ✓)`, { details });
    const failure = toGrpcFailure(original);
    expect(failure.code).toBe(grpcStatusOf(code));
    expect(failure.details).toBe(original.message);

    const back = fromServiceError(serviceError(failure.code, failure.details, failure.metadata));
    expect(isAppError(back)).toBe(true);
    expect(back).toMatchObject({ code, message: original.message, details });
  });

  it('keeps details holding any character, which metadata (printable ASCII) cannot carry as is', () => {
    // a field issue may quote what was sent (an emoji, curly quotes, a DEL, half an emoji):
    // Metadata.set threw on them, and the refusal became an internal error (a review,
    // 2026-11-30: an SSO domain list of "🚀.test" was a 503, not a 400)
    const details = [
      { field: 'allowedDomains.0', message: '“🚀.test” is not a domain name' },
      { field: 'name', message: 'ends in \u007f and \ud800' },
    ];
    const failure = toGrpcFailure(new AppError('validation_failed', 'Refused.', { details }));
    const back = fromServiceError(serviceError(failure.code, failure.details, failure.metadata));
    expect(back).toMatchObject({ code: 'validation_failed', details });
    expect(failure.metadata.get(ERROR_DETAILS_METADATA)[0]).toMatch(/^[\x20-\x7e]*$/);
  });

  it('leaves details undefined when there were none', () => {
    const failure = toGrpcFailure(new AppError('invalid_key', 'The API key is not valid.'));
    expect(failure.metadata.get(ERROR_DETAILS_METADATA)).toEqual([]);
    const back = fromServiceError(serviceError(failure.code, failure.details, failure.metadata));
    expect(back.details).toBeUndefined();
  });

  it('carries a Retry-After hint across, and only a sane one', () => {
    const failure = toGrpcFailure(
      new AppError('service_unavailable', 'Try again.', { retryAfterSeconds: 2 }),
    );
    expect(failure.metadata.get(RETRY_AFTER_METADATA)).toEqual(['2']);
    const back = fromServiceError(serviceError(failure.code, failure.details, failure.metadata));
    expect(back.retryAfterSeconds).toBe(2);
    for (const junk of ['0', '-1', 'soon', '1.5']) {
      failure.metadata.set(RETRY_AFTER_METADATA, junk);
      expect(
        fromServiceError(serviceError(failure.code, failure.details, failure.metadata))
          .retryAfterSeconds,
      ).toBeUndefined();
    }
  });

  it('does not put the cause on the wire', () => {
    const cause = new Error('relation "records.campaigns" does not exist at 10.1.2.3:5432');
    const failure = toGrpcFailure(
      new AppError('internal_error', 'An internal error occurred.', { cause }),
    );
    const wire = JSON.stringify({ d: failure.details, m: failure.metadata.getMap() });
    expect(wire).not.toContain('relation');
    expect(wire).not.toContain('10.1.2.3');
  });
});

describe('fromServiceError with errors our services did not send', () => {
  const peerText = 'connect ECONNREFUSED 10.0.0.5:50051 (select * from api_keys)';

  it.each([status.UNAVAILABLE, status.DEADLINE_EXCEEDED])(
    'turns status %i into a generic service_unavailable',
    (code) => {
      const err = fromServiceError(serviceError(code, peerText));
      expect(err.code).toBe('service_unavailable');
      expect(err.message).not.toMatch(/ECONNREFUSED|10\.0\.0\.5|select/);
      expect(err.retryAfterSeconds).toBeGreaterThan(0);
      expect(err.cause).toBeInstanceOf(Error);
    },
  );

  it.each([
    status.UNKNOWN,
    status.INTERNAL,
    status.INVALID_ARGUMENT,
    status.NOT_FOUND,
    status.PERMISSION_DENIED,
    status.UNAUTHENTICATED,
    status.RESOURCE_EXHAUSTED,
    status.UNIMPLEMENTED,
    status.DATA_LOSS,
  ])('turns status %i into a generic internal_error', (code) => {
    const err = fromServiceError(serviceError(code, peerText));
    expect(err.code).toBe('internal_error');
    expect(err.message).toBe('An internal error occurred.');
  });

  it('ignores a code that is not ours in the metadata', () => {
    const md = new Metadata();
    md.set(ERROR_CODE_METADATA, 'totally_made_up');
    const err = fromServiceError(serviceError(status.INVALID_ARGUMENT, peerText, md));
    expect(err.code).toBe('internal_error');
    expect(err.message).not.toContain('ECONNREFUSED');
  });

  it('drops details that are not a JSON array', () => {
    for (const raw of ['{not json', '{"field":"x"}', '"text"']) {
      const md = new Metadata();
      md.set(ERROR_CODE_METADATA, 'validation_failed');
      md.set(ERROR_DETAILS_METADATA, raw);
      const err = fromServiceError(serviceError(status.INVALID_ARGUMENT, 'bad input', md));
      expect(err).toMatchObject({
        code: 'validation_failed',
        message: 'bad input',
        details: undefined,
      });
    }
  });

  it('copes with an error that carries no metadata at all', () => {
    const err = serviceError(status.UNAVAILABLE, 'No connection established');
    (err as { metadata?: Metadata }).metadata = undefined;
    expect(fromServiceError(err).code).toBe('service_unavailable');
  });
});

describe('AppError', () => {
  it('carries code, details, retry hint and cause, and names itself', () => {
    const cause = new Error('root');
    const err = new AppError('rate_limited', 'Slow down.', { cause, retryAfterSeconds: 7 });
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ name: 'AppError', code: 'rate_limited', retryAfterSeconds: 7 });
    expect(err.cause).toBe(cause);
    expect(isAppError(err)).toBe(true);
    expect(isAppError(new Error('x'))).toBe(false);
  });
});
