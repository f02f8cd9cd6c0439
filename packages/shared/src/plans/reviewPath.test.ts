import { reviewPathFor } from './reviewPath';

describe('reviewPathFor', () => {
  it.each([
    ['blitz', '/workspaces/clipping/plans/pln_1/review'],
    ['ugc', '/workspaces/ugc/plans/pln_1/review'],
    ['package', '/workspaces/influencers/plans/pln_1/review'],
    ['affiliate', '/workspaces/affiliate/plans/pln_1/review'],
  ] as const)('opens the %s plan in its workspace', (type, path) => {
    expect(reviewPathFor(type, 'pln_1')).toBe(path);
  });
});
