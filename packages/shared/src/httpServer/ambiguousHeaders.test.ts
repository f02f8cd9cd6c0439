import { ambiguousHeaderError } from './ambiguousHeaders';

const raw = (...names: string[]): string[] => names.flatMap((n) => [n, 'x']);

describe('ambiguousHeaderError', () => {
  it('admits one Authorization and one Host, in any case, among other headers', () => {
    expect(ambiguousHeaderError(raw('Host', 'authorization', 'Accept', 'X-Host'))).toBeUndefined();
    expect(ambiguousHeaderError(raw('HOST', 'Authorization'))).toBeUndefined();
    expect(ambiguousHeaderError([])).toBeUndefined();
  });

  it.each([
    [['Authorization', 'Host', 'authorization'], 'The request carries 2 Authorization headers'],
    [['host', 'Host', 'HOST'], 'The request carries 3 Host headers'],
    // both repeated: the header that appears first is named
    [['Host', 'Authorization', 'Authorization', 'Host'], 'The request carries 2 Host headers'],
    [
      ['Authorization', 'Host', 'Host', 'Authorization'],
      'The request carries 2 Authorization headers',
    ],
  ])('refuses %j as 400 malformed_request', (names, message) => {
    const err = ambiguousHeaderError(raw(...names));
    expect(err).toMatchObject({ code: 'malformed_request' });
    expect(err?.message).toBe(`${message}; send exactly one.`);
  });
});
