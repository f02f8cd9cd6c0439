import type { GatewayProcess } from '@brand/testkit';

/** The detailed readiness of the internal operations listener. */
export interface OpsReadiness {
  status: 'ready' | 'not_ready';
  checks: {
    records: 'ok' | 'unavailable';
    plans: 'ok' | 'degraded';
    redis: 'ok' | 'degraded';
    shutting_down: boolean;
  };
}

/** GET /readyz on a gateway's internal listener: status code and the checks. */
export async function opsReadiness(
  gateway: GatewayProcess,
): Promise<{ status: number; body: OpsReadiness }> {
  const res = await fetch(`${gateway.opsUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as OpsReadiness };
}
