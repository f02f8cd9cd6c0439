import { pathForLog } from './errorPage';

// A failure on a path that carries a bearer token (a sign-in link, an invitation) was logged with
// the path itself: whoever read the logs held a live link (review, 2026-11-29).
describe('pathForLog', () => {
  const token = 'q1w2e3r4t5y6u7i8o9p0AsDfGhJkL_-zxcv';

  it('logs the matched route pattern, never the token in the path', () => {
    const logged = pathForLog({
      path: `/invite/${token}`,
      baseUrl: '',
      route: { path: '/invite/:token' },
    });
    expect(logged).toBe('/invite/:token');
    expect(logged).not.toContain(token);
  });

  it('masks token-long segments where no route matched', () => {
    expect(pathForLog({ path: `/sign-in/${token}`, baseUrl: '' })).toBe('/sign-in/:masked');
    expect(pathForLog({ path: '/brands/br_demo/keys', baseUrl: '' })).toBe('/brands/br_demo/keys');
  });
});
