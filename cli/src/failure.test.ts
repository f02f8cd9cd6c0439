import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { AppError, ERROR_CODE_METADATA, fromServiceError } from '@brand/shared/errors';
import { describeFailure, EXIT } from './failure';
import { UsageError } from './usageError';

function serviceError(code: status, details: string, sentCode?: string): ServiceError {
  const metadata = new Metadata();
  if (sentCode) metadata.set(ERROR_CODE_METADATA, sentCode);
  return Object.assign(new Error(details), { code, details, metadata });
}

describe('describeFailure', () => {
  it("keeps the service's refusal and exits 1", () => {
    const err = fromServiceError(
      serviceError(status.FAILED_PRECONDITION, 'Cannot create the key: x.', 'precondition_failed'),
    );
    expect(describeFailure(err, 'h:1', 1000)).toEqual({
      failure: { code: 'precondition_failed', message: 'Cannot create the key: x.' },
      exitCode: EXIT.refused,
    });
  });

  it('keeps field details of validation failures', () => {
    const details = [{ field: 'email', message: 'must be an email address' }];
    const err = new AppError('validation_failed', 'email: must be an email address', { details });
    expect(describeFailure(err, 'h:1', 1000).failure.details).toEqual(details);
  });

  it('says where it looked when nothing answers, and exits 3', () => {
    const err = fromServiceError(serviceError(status.UNAVAILABLE, 'No connection established'));
    expect(describeFailure(err, '127.0.0.1:50051', 1000)).toEqual({
      failure: {
        code: 'service_unavailable',
        message: 'cannot reach the records service at 127.0.0.1:50051; is it running? (npm run up)',
      },
      exitCode: EXIT.unreachable,
    });
  });

  it('names the deadline when the service does not answer in time', () => {
    const err = fromServiceError(serviceError(status.DEADLINE_EXCEEDED, 'Deadline exceeded'));
    expect(describeFailure(err, 'h:1', 1500).failure.message).toBe(
      'the records service at h:1 did not answer within 1500 ms; is it running? (npm run up)',
    );
  });

  it('names the plans service for plan commands', () => {
    const err = fromServiceError(serviceError(status.UNAVAILABLE, 'No connection established'));
    expect(describeFailure(err, '127.0.0.1:50052', 1000, 'plans').failure.message).toBe(
      'cannot reach the plans service at 127.0.0.1:50052; is it running? (npm run up)',
    );
  });

  it("keeps the service's own service_unavailable message (e.g. its database is down)", () => {
    const err = fromServiceError(
      serviceError(status.UNAVAILABLE, 'The database is unavailable.', 'service_unavailable'),
    );
    expect(describeFailure(err, 'h:1', 1000)).toEqual({
      failure: { code: 'service_unavailable', message: 'The database is unavailable.' },
      exitCode: EXIT.unreachable,
    });
  });

  it('reports anything else as internal_error with exit 1', () => {
    expect(describeFailure(new Error('boom'), 'h:1', 1000)).toEqual({
      failure: { code: 'internal_error', message: 'boom' },
      exitCode: EXIT.refused,
    });
  });
});

describe('describeFailure never echoes the admin token', () => {
  it('redacts the token wherever a message quotes it', () => {
    const err = new Error('Metadata string value "Sup3rS3cretValue" contains illegal characters');
    const { failure } = describeFailure(err, 'h:1', 1000, 'records', 'Sup3rS3cretValue');
    expect(failure.message).not.toContain('Sup3rS3cretValue');
    expect(failure.message).toContain('[redacted]');
  });

  it("redacts whatever gRPC quotes as a metadata value, the token's or not", () => {
    const err = new Error('Metadata string value "Sup3rS3cret" contains illegal characters');
    expect(describeFailure(err, 'h:1', 1000).failure.message).not.toContain('Sup3rS3cret');
  });

  it('reports a usage error with exit code 2', () => {
    expect(describeFailure(new UsageError('--key-file x is a directory'), 'h:1', 1000)).toEqual({
      failure: { code: 'usage', message: '--key-file x is a directory' },
      exitCode: EXIT.usage,
    });
  });
});
