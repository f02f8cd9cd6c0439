import { redisProblemOf, type Redis } from '@brand/shared/redis';
import type { PlansApi } from '../clients/plansClient';
import type { RecordsApi } from '../clients/recordsClient';

export interface HealthState {
  /** False once shutdown has begun, so balancers stop routing here before the listener closes. */
  accepting: boolean;
}

export interface HealthDeps {
  records: RecordsApi;
  plans: PlansApi;
  redis: Redis;
  state: HealthState;
  /** READY_WITHOUT_RECORDS: records' absence is reported, not failing readiness. */
  readyWithoutRecords?: boolean;
}

/**
 * Readiness with the reason for each dependency, for the internal listener's /readyz
 * (opsApp.ts): ready when not shutting down and the records service reports SERVING (or, with
 * READY_WITHOUT_RECORDS, whatever records reports: a dependency every replica shares). Redis
 * does not fail readiness: without it the gateway still serves, rate-limited per instance.
 * The public listener has no probe at all (issue 47: no keyless endpoint but the description
 * file), so which dependency failed is never shown to the internet.
 */
export async function readiness(deps: HealthDeps): Promise<{
  ready: boolean;
  checks: {
    records: 'ok' | 'unavailable';
    plans: 'ok' | 'degraded';
    /** "degraded", with the reason when the server refused us ("degraded: tls: ..."). */
    redis: string;
    shutting_down: boolean;
  };
}> {
  const [records, plans] = await Promise.all([deps.records.health(), deps.plans.health()]);
  const checks = {
    records: records === 'SERVING' ? ('ok' as const) : ('unavailable' as const),
    // Reported, never failing readiness: without plans the gateway still serves every read;
    // plan preparation alone answers 503 until the plans service is back.
    plans: plans === 'SERVING' ? ('ok' as const) : ('degraded' as const),
    redis:
      deps.redis.status === 'ready' ? 'ok' : withReason('degraded', redisProblemOf(deps.redis)),
    shutting_down: !deps.state.accepting,
  };
  const recordsNeeded = !deps.readyWithoutRecords;
  return { ready: deps.state.accepting && (records === 'SERVING' || !recordsNeeded), checks };
}

/** "degraded" or "degraded: tls: server certificate not trusted (...)" (issue 43). */
function withReason(state: string, reason: string | undefined): string {
  return reason ? `${state}: ${reason}` : state;
}
