import { Kafka, logLevel as KafkaLogLevel, type LogEntry } from 'kafkajs';
import type { Logger } from '../logger';
import type { KafkaClientSecurity } from './clientSecurity';

export interface KafkaOptions {
  /** host:port list, e.g. ["127.0.0.1:9092"]. */
  brokers: string[];
  /** Shows in broker logs and consumer-group listings, e.g. "records-outbox-relay". */
  clientId: string;
  log: Logger;
  /** TLS and SASL (kafkaClientSecurity); unset: plaintext, no authentication. */
  security?: KafkaClientSecurity;
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [KafkaLogLevel.ERROR]: 'error',
  [KafkaLogLevel.WARN]: 'warn',
  [KafkaLogLevel.INFO]: 'info',
  [KafkaLogLevel.DEBUG]: 'debug',
};

/**
 * Reconnect back-off of every client: doubling from 100 ms, capped at 2 s, so a broker that
 * comes back is found within about 2 s (issue 19: a 5 s cap added up to most of the half
 * minute a broker restart cost). Retries that run out surface as an error the caller handles:
 * the consumer restarts itself, the outbox relay backs off and tries again.
 */
const RETRY = { initialRetryTime: 100, maxRetryTime: 2_000, retries: 10 };

/**
 * A kafkajs client whose log lines go through our JSON logger (kafkajs prints its own
 * format to stdout otherwise), retrying connections with capped backoff (RETRY). kafkajs's
 * INFO lines (group joins, every rebalance) are logged at debug: they are routine.
 */
export function createKafka(opts: KafkaOptions): Kafka {
  const log = opts.log.child({ kafka: opts.clientId });
  return new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    ...opts.security,
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: RETRY,
    logLevel: KafkaLogLevel.INFO,
    logCreator:
      () =>
      ({ level, log: entry }: LogEntry) => {
        const { message, ...rest } = entry;
        const name = LEVELS[level] ?? 'info';
        log[name === 'info' ? 'debug' : name](rest, message);
      },
  });
}
