import { Gauge, type Registry } from 'prom-client';
import { connectionProblemOf } from '../errors/connectionProblem';
import type { Logger } from '../logger';

/**
 * What a Kafka client last found when it connected or sent: "ok", "unreachable", or the
 * problem that keeps it out ("authentication failed", "tls: ..."). Readiness shows it as
 * `kafka: <state>`; a refused credential or certificate is a state to fix, not a crash.
 */
export interface KafkaConnectionStatus {
  /** The client connected, sent or joined its group. */
  succeeded(): void;
  /** The client failed; `err` says why (classified by connectionProblemOf). */
  failed(err: unknown): void;
  /** "ok" before the first failure and after any success; else the last failure's state. */
  state(): string;
}

/** The problems that have a series of their own on /metrics (label `problem`). */
const PROBLEMS = { authentication_failed: 'authentication failed', tls: 'tls:' } as const;

/**
 * A status that logs each change once (the first failure loudly, with its reason, and the
 * recovery), so a broker refusing credentials is one clear error line, not a stack per retry.
 * With a registry, `kafka_client_problem{client,problem}` is 1 while that problem holds.
 */
export function kafkaConnectionStatus(opts: {
  client: string;
  log: Logger;
  registry?: Registry;
}): KafkaConnectionStatus {
  let state = 'ok';
  if (opts.registry) {
    new Gauge({
      name: 'kafka_client_problem',
      help: 'Whether a Kafka client is kept out by a problem it cannot retry past (1): authentication_failed (credentials refused) or tls (certificate not trusted or not matching).',
      labelNames: ['client', 'problem'] as const,
      registers: [opts.registry],
      collect() {
        for (const [label, prefix] of Object.entries(PROBLEMS))
          this.set({ client: opts.client, problem: label }, state.startsWith(prefix) ? 1 : 0);
      },
    });
  }
  return {
    succeeded() {
      if (state !== 'ok')
        opts.log.info(
          { kafka: 'ok', client: opts.client, was: state },
          'Kafka connection works again',
        );
      state = 'ok';
    },
    failed(err) {
      const next = connectionProblemOf(err) ?? 'unreachable';
      if (next !== state) {
        const message = err instanceof Error ? err.message : String(err);
        opts.log.error(
          { kafka: next, client: opts.client, reason: message },
          `Kafka: ${next}; events wait in the outbox and on the topic until this is fixed`,
        );
      }
      state = next;
    },
    state: () => state,
  };
}
