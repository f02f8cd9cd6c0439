// The faults, injected one at a time. inject() resolves with the moment the fault was over
// (a killed process restarted, the broker or dependency back and answering, the receiver
// answering normally again), from which recovery is measured, once the system is whole again.
import type { World } from './world';

export interface Fault {
  name: string;
  /** Part of FAULTS=short, the subset scripts/test.sh runs. */
  short: boolean;
  /** Steady traffic before the fault (ms); longer where the fault needs history. */
  warmMs: number;
  /** Injects the fault and ends it; resolves with the time it ended (ms since the epoch). */
  inject(world: World): Promise<number>;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long a stopped dependency stays down before it is started again. */
const DOWN_MS = 3_000;

const killProcess = (
  name: 'gateway' | 'records' | 'plans' | 'webhooks',
  short: boolean,
): Fault => ({
  name: `SIGKILL ${name}, restart`,
  short,
  warmMs: 3_000,
  async inject(w) {
    const { listening } = await w.killAndRestart(name);
    // the process is back from its start: the time it takes to listen counts into recovery
    const restartedAt = Date.now();
    await listening;
    return restartedAt;
  },
});

/** A dependency taken down, kept down DOWN_MS, and started again; over once it answers. */
const restartDependency = (
  name: string,
  short: boolean,
  warmMs: number,
  down: (w: World) => Promise<void>,
  up: (w: World) => Promise<void>,
): Fault => ({
  name,
  short,
  warmMs,
  async inject(w) {
    await down(w);
    await pause(DOWN_MS);
    await up(w);
    return Date.now();
  },
});

export const FAULTS: Fault[] = [
  killProcess('webhooks', true),
  // records killed during the walk: pages in flight on its streams are answered 503 (issue 25)
  killProcess('records', true),
  killProcess('plans', false),
  killProcess('gateway', false),
  restartDependency(
    'Kafka broker SIGKILL, restart',
    true,
    3_000,
    (w) => w.infra.kafka.kill(),
    (w) => w.infra.kafka.start(),
  ),
  restartDependency(
    'PostgreSQL restart',
    false,
    3_000,
    (w) => w.infra.pg.stop(),
    (w) => w.infra.pg.start(),
  ),
  // The probe brand has spent its minute's budget by then (4 requests a second against 60 a
  // minute): an empty Redis and an empty fallback would admit it again. It keeps nothing on
  // disk: it comes back empty.
  restartDependency(
    'Redis SIGKILL, restart (empty)',
    true,
    20_000,
    (w) => w.infra.redis.kill(),
    (w) => w.infra.redis.start(),
  ),
  {
    name: 'receiver hangs 8 s',
    short: false,
    warmMs: 3_000,
    async inject(w) {
      w.setReceiverMode('hang');
      await pause(8_000);
      w.setReceiverMode('normal');
      return Date.now();
    },
  },
  {
    name: 'receiver 500 for 5 s, then 200',
    short: true,
    warmMs: 3_000,
    async inject(w) {
      w.setReceiverMode(500);
      await pause(5_000);
      w.setReceiverMode('normal');
      return Date.now();
    },
  },
];
