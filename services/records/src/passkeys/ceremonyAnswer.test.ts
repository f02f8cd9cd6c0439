import { AppError } from '@brand/shared/errors';
import { authenticationAnswerOf, registrationAnswerOf, signedChallengeOf } from './ceremonyAnswer';

const b64 = (s: string) => Buffer.from(s).toString('base64url');
const CHALLENGE = 'c'.repeat(43);

/** The code of the AppError `run` throws. */
function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    return err instanceof AppError ? err.code : undefined;
  }
  return undefined;
}

describe('signedChallengeOf', () => {
  it('reads the challenge the browser signed from clientDataJSON', () => {
    expect(
      signedChallengeOf(b64(JSON.stringify({ type: 'webauthn.get', challenge: CHALLENGE }))),
    ).toBe(CHALLENGE);
  });

  it.each([
    ['not base64 JSON', 'x'],
    ['no challenge', b64('{}')],
    ['a challenge that is not base64url', b64(JSON.stringify({ challenge: "x'; drop table--" }))],
    ['a number', b64(JSON.stringify({ challenge: 42 }))],
  ])('answers "" for %s', (_what, clientDataJSON) => {
    expect(signedChallengeOf(clientDataJSON)).toBe('');
  });
});

describe('the answers of the two ceremonies', () => {
  const authentication = {
    id: 'abc',
    rawId: 'abc',
    type: 'public-key',
    response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
    clientExtensionResults: {},
  };

  it('are parsed when well formed', () => {
    expect(authenticationAnswerOf(JSON.stringify(authentication)).id).toBe('abc');
  });

  it.each([
    ['not JSON', '{'],
    ['an array', '[]'],
    ['another type', JSON.stringify({ ...authentication, type: 'password' })],
    ['a field that is not base64url', JSON.stringify({ ...authentication, id: 'a b' })],
    ['too long', JSON.stringify({ ...authentication, id: 'a'.repeat(20_000) })],
    ['an authentication answer for a registration', JSON.stringify(authentication)],
  ])('are refused with validation_failed when %s', (what, json) => {
    const parse = what.includes('registration') ? registrationAnswerOf : authenticationAnswerOf;
    expect(codeOf(() => parse(json))).toBe('validation_failed');
  });
});
