import { AppError } from '../errors';
import { auditRelayFailure } from './auditRelay';

describe('auditRelayFailure', () => {
  it.each([
    ['service_unavailable', 'unreachable'],
    ['validation_failed', 'refused'],
    ['unauthenticated', 'refused'],
    ['insufficient_permission', 'refused'],
    ['internal_error', 'other'],
  ] as const)('names %s %s', (code, reason) => {
    expect(auditRelayFailure(new AppError(code, 'x'))).toBe(reason);
  });

  it('names a failure that is no AppError (the database) other', () => {
    expect(auditRelayFailure(new Error('connection terminated'))).toBe('other');
  });
});
