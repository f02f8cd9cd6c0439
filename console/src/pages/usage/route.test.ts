import { LOGGED_CODES } from './route';

// The request log's code filter offers only codes the gateway answers (it once listed 23, some of
// which the API never returns).
describe('the request log code filter', () => {
  it('offers only codes the gateway answers, derived from the error table', () => {
    expect(LOGGED_CODES).toHaveLength(19);
    for (const adminOnly of ['unauthenticated', 'already_exists', 'precondition_failed'])
      expect(LOGGED_CODES).not.toContain(adminOnly);
    expect(LOGGED_CODES).toContain('rate_limited');
  });
});
