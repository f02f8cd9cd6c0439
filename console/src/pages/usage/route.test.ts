import { LOGGED_CODES } from './route';

// Issue 35: the request log's code filter listed 23 codes, some of which the API never returns.
describe('the request log code filter', () => {
  it('offers only codes the gateway answers, derived from the error table', () => {
    expect(LOGGED_CODES).toHaveLength(18);
    for (const adminOnly of ['unauthenticated', 'already_exists', 'precondition_failed'])
      expect(LOGGED_CODES).not.toContain(adminOnly);
    expect(LOGGED_CODES).toContain('rate_limited');
  });
});
