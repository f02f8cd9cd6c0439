import { html, healthWindow, viewer } from '../../../test/receiverFixtures';
import { OverviewPage } from './view';

const oneRequest = {
  start: '2026-11-23T10:00:00Z',
  counts: { '2xx': 1, '304': 0, '4xx': 0, '429': 0, '5xx': 0 },
};

// Counts on the overview say one thing in the singular ("1 requests" was the probe's finding).
describe('the overview’s counts', () => {
  it('says 1 request and 1 attempt, and 2 requests and 2 attempts', () => {
    const page = (n: number) =>
      html(
        <OverviewPage
          viewer={viewer()}
          now={Date.parse('2026-11-23T12:00:00Z')}
          data={{
            deliveries: healthWindow({ attempts: n, succeeded: n }),
            requests: {
              slices: Array.from({ length: n }, () => oneRequest),
              limitPerMinute: 240,
            },
          }}
        />,
      );
    expect(page(1)).toContain('1 request, REST and assistant');
    expect(page(1)).toContain('1 of 1 attempt succeeded');
    expect(page(2)).toContain('2 requests, REST and assistant');
    expect(page(2)).toContain('2 of 2 attempts succeeded');
  });
});
