import { AppError } from '../errors';
import { classifyFailure } from './failure';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe('classifyFailure', () => {
  it.each(['22001', '22003', '22007', '22008', '22009', '22021', '22P02', '22P05'])(
    'answers a value the database refused (%s) invalid_parameter, keeping the cause',
    (code) => {
      const failure = classifyFailure(pgError(code));
      expect(failure.code).toBe('invalid_parameter');
      expect((failure.cause as Error).message).toBe(`pg ${code}`);
    },
  );

  // The server's own data exceptions stay 500s, which the alerts count (a review, 2026-11-29).
  it.each(['2200H', '22012', '22023', '23505', 'XX000'])('keeps %s an internal_error', (code) => {
    expect(classifyFailure(pgError(code)).code).toBe('internal_error');
  });

  it('passes an AppError through and calls an unreachable database service_unavailable', () => {
    const own = new AppError('not_found', 'No such thing.');
    expect(classifyFailure(own)).toBe(own);
    expect(classifyFailure(pgError('57P01')).code).toBe('service_unavailable');
  });
});
