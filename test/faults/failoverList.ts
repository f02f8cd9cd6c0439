// The failovers of managed services (issue 60), injected one at a time on the replicated
// infrastructure (infra.ts). inject() resolves with when the failover began (the primary or
// broker lost) and when it was over (the endpoint moved to the promoted server; for Kafka, at
// once: the cluster elects new leaders by itself).
import { failOverPostgres, failOverRedis, type ReplicatedInfra } from './infra';
import type { World } from './world';

/**
 * How long the primary is gone before the standby or replica takes over: a managed service
 * detects the loss, promotes and moves its DNS name in 60-120 s; the suite holds 5 s, enough to
 * meet every request and event path failing, and says what follows the promotion.
 */
const DETECTION_MS = 5_000;

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Failover {
  name: string;
  /** Part of FAULTS=short, the subset scripts/test.sh runs. */
  short: boolean;
  /** Needs the three-broker cluster (the others run on one broker). */
  threeBrokers: boolean;
  /**
   * Seconds the failover takes after inject() returns, on the service's own side: the Kafka
   * controller fences a lost broker and elects new leaders only once its session lapses
   * (broker.session.timeout.ms, 9 s by default, as on managed clusters). Recovery is promised
   * within this plus the suite's target.
   */
  settleSeconds: number;
  inject(world: World<ReplicatedInfra>): Promise<{ lostAt: number; healedAt: number }>;
}

export const FAILOVERS: Failover[] = [
  {
    name: 'PostgreSQL failover: primary lost, standby promoted',
    short: true,
    threeBrokers: false,
    settleSeconds: 0,
    async inject(w) {
      const lostAt = Date.now();
      await failOverPostgres(w.infra, () => pause(DETECTION_MS));
      return { lostAt, healedAt: Date.now() };
    },
  },
  {
    name: 'Redis failover: primary lost, replica promoted',
    short: false,
    threeBrokers: false,
    settleSeconds: 0,
    async inject(w) {
      const lostAt = Date.now();
      await failOverRedis(w.infra, () => pause(DETECTION_MS));
      return { lostAt, healedAt: Date.now() };
    },
  },
  {
    // Stays down: two brokers of three hold every partition's in-sync replicas (min ISR 2).
    name: 'Kafka: one broker of three lost',
    short: false,
    threeBrokers: true,
    settleSeconds: 9,
    async inject(w) {
      const lostAt = Date.now();
      await w.infra.kafka.nodes[0]!.kill();
      return { lostAt, healedAt: Date.now() };
    },
  },
];
