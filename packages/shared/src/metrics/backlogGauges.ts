import { Gauge, type Registry } from 'prom-client';

/** A backlog as a table reads it: how many wait, and how long the oldest has waited. */
export interface Backlog {
  waiting: number;
  oldestAgeSeconds: number;
}

/** One gauge's name and help. */
interface GaugeName {
  name: string;
  help: string;
}

/** The second gauge takes the first one's read if it is this fresh (the same scrape). */
const SHARED_READ_MS = 1_000;

/**
 * The two gauges of an outbox's backlog (the business events' outbox, the audit outbox), read
 * from the table at scrape time, so every replica reports them, relaying or not: one read serves
 * both gauges of a scrape (each scrape reads afresh), and a scrape while the database is
 * unreachable keeps the last values rather than failing /metrics.
 */
export function backlogGauges(
  registry: Registry,
  gauges: { waiting: GaugeName; oldestAge: GaugeName },
  read: () => Promise<Backlog>,
): void {
  // The waiting gauge reads (each scrape collects it first: registration order) and leaves its
  // read to the age gauge, which takes it once; collected alone, or later, the age gauge reads.
  let handed: { at: number; answer: Promise<Backlog | undefined> } | undefined;
  const fresh = (): Promise<Backlog | undefined> => read().catch(() => undefined);
  const taken = (): Promise<Backlog | undefined> => {
    const h = handed;
    handed = undefined;
    return h && Date.now() - h.at <= SHARED_READ_MS ? h.answer : fresh();
  };
  new Gauge({
    ...gauges.waiting,
    registers: [registry],
    async collect() {
      const answer = fresh();
      handed = { at: Date.now(), answer };
      const b = await answer;
      if (b) this.set(b.waiting);
    },
  });
  new Gauge({
    ...gauges.oldestAge,
    registers: [registry],
    async collect() {
      const b = await taken();
      if (b) this.set(b.oldestAgeSeconds);
    },
  });
}
