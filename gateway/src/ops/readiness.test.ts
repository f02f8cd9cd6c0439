import type { Redis } from '@brand/shared/redis';
import type { PlansApi } from '../clients/plansClient';
import type { RecordsApi } from '../clients/recordsClient';
import { readiness, type HealthDeps } from './readiness';

/** Health answers as the clients give them; only health() is read by readiness. */
function deps(records: string, over: Partial<HealthDeps> = {}): HealthDeps {
  return {
    records: { health: () => Promise.resolve(records) } as unknown as RecordsApi,
    plans: { health: () => Promise.resolve('SERVING') } as unknown as PlansApi,
    redis: { status: 'ready' } as unknown as Redis,
    state: { accepting: true },
    ...over,
  };
}

describe('gateway readiness', () => {
  it('is not ready while records is unavailable, by default', async () => {
    const r = await readiness(deps('NOT_SERVING'));
    expect(r.ready).toBe(false);
    expect(r.checks.records).toBe('unavailable');
  });

  it('stays ready with READY_WITHOUT_RECORDS, and still names records as missing', async () => {
    const r = await readiness(deps('NOT_SERVING', { readyWithoutRecords: true }));
    expect(r.ready).toBe(true);
    expect(r.checks.records).toBe('unavailable');
  });

  it('is never ready while shutting down, READY_WITHOUT_RECORDS or not', async () => {
    const r = await readiness(
      deps('SERVING', { readyWithoutRecords: true, state: { accepting: false } }),
    );
    expect(r.ready).toBe(false);
    expect(r.checks.shutting_down).toBe(true);
  });
});
