import { testTransport } from '../testing/testTransport';
import { EventsResource } from './eventsResource';
import { FROM_OLDEST } from './followCheckpoint';
import type { FollowOptions } from './follower';

/** Follow with `over`; the stub answers an empty page, so only the options decide. */
function follow(over: Partial<FollowOptions>) {
  const { transport, requests } = testTransport([
    { status: 200, body: { resource: 'events', count: 0, data: [], next_after: 0 } },
  ]);
  const stop = new AbortController();
  stop.abort();
  const run = new EventsResource(transport).follow({
    from: FROM_OLDEST,
    onEvent: () => undefined,
    onCheckpoint: () => undefined,
    signal: stop.signal,
    ...over,
  });
  return { run, requests };
}

describe('events.follow option checks', () => {
  it.each([-1, 0, NaN, Infinity, 99, 2 ** 31, '5000'])(
    'refuses intervalMs %p with a TypeError naming it, before any request',
    async (intervalMs) => {
      const { run, requests } = follow({ intervalMs: intervalMs as number });
      await expect(run).rejects.toThrow(TypeError);
      await expect(run).rejects.toThrow(/intervalMs/);
      expect(requests).toHaveLength(0);
    },
  );

  it.each([0, -1, 201, 1.5, NaN, '100'])('refuses limit %p', async (limit) => {
    const { run } = follow({ limit: limit as number });
    await expect(run).rejects.toThrow(TypeError);
    await expect(run).rejects.toThrow(/limit/);
  });

  it.each([100, 5_000, 2 ** 31 - 1])('accepts intervalMs %p', async (intervalMs) => {
    await expect(follow({ intervalMs }).run).resolves.toBeUndefined();
  });

  it.each([1, 200])('accepts limit %p', async (limit) => {
    await expect(follow({ limit }).run).resolves.toBeUndefined();
  });
});
