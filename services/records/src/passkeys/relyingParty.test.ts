import { AppError } from '@brand/shared/errors';
import { relyingPartyOf } from './relyingParty';

/** The code of the AppError `run` throws. */
function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    return err instanceof AppError ? err.code : undefined;
  }
  return undefined;
}

describe('relyingPartyOf', () => {
  it('takes the host of a bare http(s) origin as the RP ID', () => {
    expect(relyingPartyOf('https://console.example.com')).toEqual({
      origin: 'https://console.example.com',
      rpID: 'console.example.com',
    });
    expect(relyingPartyOf('http://localhost:8090')).toEqual({
      origin: 'http://localhost:8090',
      rpID: 'localhost',
    });
  });

  it.each([
    '',
    'console.example.com',
    'https://console.example.com/',
    'ftp://x.example',
    'https://a.example/path',
    'javascript:alert(1)',
  ])('refuses %j with validation_failed', (origin) => {
    expect(codeOf(() => relyingPartyOf(origin))).toBe('validation_failed');
  });
});
