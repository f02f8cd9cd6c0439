import { Metadata } from '@grpc/grpc-js';
import { CallerAuth, type AccessLevel } from './callerAuth';
import { INTERNAL_TOKEN_METADATA } from '../grpcClient/metadata';

const TOKENS = {
  internal: ['internal-token-0123456789abcdef-0123456'],
  admin: ['admin-token-0123456789abcdef-01234567890'],
  console: ['console-token-0123456789abcdef-012345678'],
};
const auth = new CallerAuth(TOKENS);

const outcome = (token: string, level: AccessLevel): string => {
  const md = new Metadata();
  if (token !== '') md.set(INTERNAL_TOKEN_METADATA, token);
  try {
    return auth.check(md, level);
  } catch (err) {
    return (err as { code: string }).code;
  }
};

describe('CallerAuth', () => {
  it.each<[AccessLevel, string, string, string]>([
    // level, internal token, admin token, console token
    ['internal', 'internal', 'admin', 'insufficient_permission'],
    ['admin', 'insufficient_permission', 'admin', 'insufficient_permission'],
    ['console', 'insufficient_permission', 'insufficient_permission', 'console'],
    ['developers', 'insufficient_permission', 'admin', 'console'],
  ])('at level %s: internal -> %s, admin -> %s, console -> %s', (level, i, a, c) => {
    expect(outcome(TOKENS.internal[0]!, level)).toBe(i);
    expect(outcome(TOKENS.admin[0]!, level)).toBe(a);
    expect(outcome(TOKENS.console[0]!, level)).toBe(c);
    expect(outcome('', level)).toBe('unauthenticated');
    expect(outcome(`${TOKENS.console[0]!}x`, level)).toBe('unauthenticated');
  });

  it('without a console token, console calls are unauthenticated', () => {
    const noConsole = new CallerAuth({ ...TOKENS, console: [] });
    const md = new Metadata();
    md.set(INTERNAL_TOKEN_METADATA, TOKENS.console[0]!);
    expect(() => noConsole.check(md, 'developers')).toThrow('The caller credential is not valid.');
  });

  it('refuses a console token equal to another class', () => {
    expect(() => new CallerAuth({ ...TOKENS, console: TOKENS.admin })).toThrow(/must all differ/);
  });
});
