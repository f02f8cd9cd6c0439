import { LOGGED_CODES } from './route';

// The request log's code filter offers only codes the gateway answers (it once listed 23, some of
// which the API never returns).
describe('the request log code filter', () => {
  it('offers only codes the gateway answers, derived from the error table', () => {
    // 19, then the events feed's position_beyond_head (issue 62) and network_not_allowed of keys
    // bound to networks (issue 63)
    expect(LOGGED_CODES).toHaveLength(21);
    expect(LOGGED_CODES).toEqual(
      expect.arrayContaining(['position_beyond_head', 'network_not_allowed']),
    );
    for (const adminOnly of ['unauthenticated', 'already_exists', 'precondition_failed'])
      expect(LOGGED_CODES).not.toContain(adminOnly);
    expect(LOGGED_CODES).toContain('rate_limited');
  });
});
