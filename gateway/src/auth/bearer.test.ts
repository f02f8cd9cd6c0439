import { readBearerKey } from './bearer';

const LIVE = `bk_live_${'a1B2'.repeat(10)}`;
const TEST = `bk_test_${'a1B2'.repeat(10)}`;

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

describe('readBearerKey', () => {
  it('returns the key of an exact "Bearer <key>" header', () => {
    expect(readBearerKey(`Bearer ${LIVE}`, 'live')).toBe(LIVE);
    expect(readBearerKey(`Bearer   ${LIVE}  `, 'live')).toBe(LIVE);
  });

  it.each([
    undefined,
    '',
    'Basic abc',
    `bearer ${LIVE}`,
    `BEARER ${LIVE}`,
    LIVE,
    'Bearer',
    'Bearer ',
    'Bearer    ',
  ])('%j is missing_key', (header) =>
    expect(codeOf(() => readBearerKey(header, 'live'))).toBe('missing_key'),
  );

  it.each([
    'Bearer nope',
    `Bearer bk_live_short`,
    `Bearer ${LIVE}!`,
    `Bearer bk_prod_${'a'.repeat(40)}`,
  ])('%j is invalid_key', (header) =>
    expect(codeOf(() => readBearerKey(header, 'live'))).toBe('invalid_key'),
  );

  it('a key of the other environment is invalid_key in both directions', () => {
    expect(codeOf(() => readBearerKey(`Bearer ${TEST}`, 'live'))).toBe('invalid_key');
    expect(codeOf(() => readBearerKey(`Bearer ${LIVE}`, 'test'))).toBe('invalid_key');
    expect(readBearerKey(`Bearer ${TEST}`, 'test')).toBe(TEST);
  });
});
