import type { Redis } from '@brand/shared/redis';
import { readiness, type ReadinessDeps } from './readiness';

type Serving = Awaited<ReturnType<ReadinessDeps['clients']['health']>>['records'];

/** Health answers as the clients give them; only health() and the Redis status are read. */
function deps(records: Serving, over: Partial<ReadinessDeps> = {}): ReadinessDeps {
  return {
    clients: {
      health: () => Promise.resolve({ records, webhooks: 'SERVING', plans: 'SERVING' }),
    },
    redis: { status: 'ready' } as unknown as Redis,
    state: { accepting: true },
    readyWithoutRecords: true,
    ...over,
  };
}

describe('console readiness', () => {
  it('stays ready while records or Redis is away, naming each', async () => {
    const r = await readiness(deps('NOT_SERVING', { redis: { status: 'reconnecting' } as Redis }));
    expect(r).toEqual({
      ready: true,
      checks: {
        records: 'unavailable',
        webhooks: 'ok',
        plans: 'ok',
        redis: 'unavailable',
        shutting_down: false,
      },
    });
  });

  it('is not ready without records with READY_WITHOUT_RECORDS=false', async () => {
    const r = await readiness(deps('NOT_SERVING', { readyWithoutRecords: false }));
    expect(r.ready).toBe(false);
    expect((await readiness(deps('SERVING', { readyWithoutRecords: false }))).ready).toBe(true);
  });

  it('is never ready while shutting down', async () => {
    const r = await readiness(deps('SERVING', { state: { accepting: false } }));
    expect(r.ready).toBe(false);
    expect(r.checks.shutting_down).toBe(true);
  });
});
