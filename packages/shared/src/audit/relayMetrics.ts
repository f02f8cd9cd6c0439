import { Counter, Gauge, type Registry } from 'prom-client';
import { backlogGauges } from '../metrics/backlogGauges';
import type { Pool } from '../db/pool';
import { countOutboxSetAside, selectOutboxBacklog } from './auditOutboxRepo';
import type { AuditRelayFailure, AuditRelayObserver } from './auditRelay';

/** Rows the waiting gauge counts at most: past this the outbox is "this many or more". */
const AUDIT_OUTBOX_COUNT_CAP = 100_000;

const REASONS: readonly AuditRelayFailure[] = ['unreachable', 'refused', 'other'];

/**
 * The audit outbox on /metrics of a service that runs the audit relay (records, plans): the
 * entries waiting and the age of the oldest, and the entries set aside (gauges read from the
 * table at scrape time, so every replica reports them, relaying or not; a scrape while the
 * database is unreachable keeps the last values), this process's failed hand-overs by reason
 * and the entries it set aside (counters). The trail's own counts (the console's "entries waiting") only see what arrived;
 * these see what did not.
 */
export function auditRelayMetrics(registry: Registry, pool: Pool): AuditRelayObserver {
  const failures = new Counter({
    name: 'audit_relay_failures_total',
    help: 'Failed hand-overs of the audit outbox to the trail, by reason (unreachable, refused, other).',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of REASONS) failures.inc({ reason }, 0);
  const setAside = new Counter({
    name: 'audit_relay_entries_set_aside_total',
    help: 'Audit entries the trail refused on their own, set aside in the outbox by this process.',
    registers: [registry],
  });
  backlogGauges(
    registry,
    {
      waiting: {
        name: 'audit_outbox_waiting_entries',
        help: `Audit entries in the outbox, not yet in the trail, set aside ones apart (counted up to ${AUDIT_OUTBOX_COUNT_CAP}).`,
      },
      oldestAge: {
        name: 'audit_outbox_oldest_waiting_age_seconds',
        help: 'How long the oldest audit entry in the outbox, set aside ones apart, has waited (0 when none).',
      },
    },
    async () => {
      const b = await selectOutboxBacklog(pool, AUDIT_OUTBOX_COUNT_CAP);
      return { waiting: b.waiting, oldestAgeSeconds: b.oldest_age_seconds };
    },
  );
  new Gauge({
    name: 'audit_outbox_set_aside_entries',
    help: `Audit entries the trail refused, set aside in the outbox until an operator mends them (counted up to ${AUDIT_OUTBOX_COUNT_CAP}).`,
    registers: [registry],
    async collect() {
      const n = await countOutboxSetAside(pool, AUDIT_OUTBOX_COUNT_CAP).catch(() => undefined);
      if (n !== undefined) this.set(n);
    },
  });
  return {
    failed: (reason) => failures.inc({ reason }),
    setAside: () => setAside.inc(),
  };
}
