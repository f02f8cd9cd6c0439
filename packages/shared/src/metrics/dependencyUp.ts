import { Gauge, type Registry } from 'prom-client';

/**
 * `dependency_up{dependency}`: 1 while the process reaches that dependency (postgresql, redis,
 * kafka), 0 while it does not, read at each scrape from the same state readiness reports. One
 * alert per dependency selects it (the chart's BrandRecordsPostgresUnreachable,
 * BrandRecordsRedisUnreachable; issue 60), so a failover shows as what it is, not as 5xx later.
 */
export function dependencyUpGauge(registry: Registry, states: () => Record<string, boolean>): void {
  new Gauge({
    name: 'dependency_up',
    help: 'Whether this process reaches the dependency (1) or not (0), as its readiness reports it.',
    labelNames: ['dependency'] as const,
    registers: [registry],
    collect() {
      for (const [dependency, up] of Object.entries(states())) this.set({ dependency }, up ? 1 : 0);
    },
  });
}
