import { ApiKey } from '@brand/proto/access/v1';
import { renderToString } from 'preact-render-to-string';
import { formatAgo } from '../../views/countdown';
import { KeysPage } from './view';

// A key's "last used" reads in seconds while recent, the exact second in its title: showing only
// the minute, nobody could tell whether a rolled key was still in use right now.
const NOW = Date.parse('2030-01-10T12:00:00Z');

describe('formatAgo', () => {
  it.each([
    ['2030-01-10T11:59:48Z', '12 s ago'],
    ['2030-01-10T11:55:55Z', '4 min 05 s ago'],
    ['2030-01-10T08:48:00Z', '3 h 12 min ago'],
    ['2030-01-10T12:00:00.500Z', 'just now'],
    ['2030-01-10T12:00:05Z', 'just now'],
  ])('%s reads %p', (at, words) => {
    expect(formatAgo(at, NOW)).toBe(words);
  });
});

describe('the keys page', () => {
  it('shows a key used 12 s ago as such, with the exact second in the title', () => {
    const page = renderToString(
      KeysPage({
        viewer: {
          email: 'o@x.test',
          role: 'owner',
          brandId: 'br_a',
          brandName: 'A',
          csrfToken: 't',
        },
        canManage: false,
        requireKeyNetworks: false,
        onceToken: 'once',
        now: NOW,
        keys: [
          ApiKey.fromPartial({
            id: 'key_a',
            name: 'Sync',
            prefix: 'bk_live_abc',
            created_at: '2030-01-01T00:00:00Z',
            last_used_at: '2030-01-10T11:59:48.000000Z',
          }),
        ],
      }),
    );
    expect(page).toContain('12 s ago');
    expect(page).toContain('title="2030-01-10 11:59:48 UTC"');
  });
});
