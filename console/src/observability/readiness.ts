import { redisProblemOf, type Redis } from '@brand/shared/redis';
import type { ConsoleClients } from '../clients/consoleClients';

export interface ReadinessDeps {
  clients: Pick<ConsoleClients, 'health'>;
  redis: Redis;
  state: { accepting: boolean };
  /** READY_WITHOUT_RECORDS: records' absence is reported, not failing readiness. */
  readyWithoutRecords: boolean;
}

/**
 * The console's readiness, for the internal listener's /readyz (opsApp.ts): ready unless
 * shutting down, or, with READY_WITHOUT_RECORDS=false (the gateway's setting of the same name),
 * records is unavailable. Every dependency is reported in the checks and none other fails it:
 * every console shares records and Redis, so a readiness that followed them took every pod out
 * during a database or Redis failover, and the ingress answered every page, and SCIM, with its
 * own 503 without Retry-After, where the console answers each page itself (503 with Retry-After
 * without records; only the one-time reveal needs Redis). Webhooks and plans: the other pages
 * keep working while one of them is away.
 */
export async function readiness(deps: ReadinessDeps): Promise<{
  ready: boolean;
  checks: {
    records: 'ok' | 'unavailable';
    webhooks: 'ok' | 'degraded';
    plans: 'ok' | 'degraded';
    /** "unavailable", with the reason when the server refused us ("unavailable: tls: ..."). */
    redis: string;
    shutting_down: boolean;
  };
}> {
  const services = await deps.clients.health();
  const reason = redisProblemOf(deps.redis);
  const checks = {
    records: services.records === 'SERVING' ? ('ok' as const) : ('unavailable' as const),
    webhooks: services.webhooks === 'SERVING' ? ('ok' as const) : ('degraded' as const),
    plans: services.plans === 'SERVING' ? ('ok' as const) : ('degraded' as const),
    redis: deps.redis.status === 'ready' ? 'ok' : reason ? `unavailable: ${reason}` : 'unavailable',
    shutting_down: !deps.state.accepting,
  };
  const recordsNeeded = !deps.readyWithoutRecords;
  return {
    ready: deps.state.accepting && (checks.records === 'ok' || !recordsNeeded),
    checks,
  };
}
