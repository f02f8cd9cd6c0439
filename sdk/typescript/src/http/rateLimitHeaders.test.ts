import { parseRateLimit } from './rateLimitHeaders';

describe('parseRateLimit', () => {
  it('reads the brand policy and state', () => {
    const headers = new Headers({
      RateLimit: '"brand";r=12;t=7',
      'RateLimit-Policy': '"brand";q=60;w=60',
    });
    expect(parseRateLimit(headers)).toEqual({
      policy: 'brand',
      limit: 60,
      remaining: 12,
      reset: 7,
      window: 60,
    });
  });

  it('reads the state alone, and ignores a policy of another name', () => {
    expect(parseRateLimit(new Headers({ RateLimit: '"anonymous";r=0;t=30' }))).toEqual({
      policy: 'anonymous',
      limit: undefined,
      remaining: 0,
      reset: 30,
      window: undefined,
    });
    const mixed = new Headers({
      RateLimit: '"brand";r=1;t=2',
      'RateLimit-Policy': '"other";q=5;w=9',
    });
    expect(parseRateLimit(mixed)?.limit).toBeUndefined();
  });

  it.each([undefined, '', '"brand"', '"brand";r=x;t=1', '"brand";t=1', ';r=1;t=1'])(
    'is undefined for %p',
    (value) => {
      const headers = new Headers(value === undefined ? {} : { RateLimit: value });
      expect(parseRateLimit(headers)).toBeUndefined();
    },
  );
});
