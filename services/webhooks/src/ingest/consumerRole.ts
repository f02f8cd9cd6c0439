import type { Pool } from '@brand/shared/db';
import {
  createKafka,
  kafkaClientSecurity,
  kafkaConnectionStatus,
  type KafkaConnectionStatus,
} from '@brand/shared/kafka';
import type { Logger } from '@brand/shared/logger';
import type { Registry } from '@brand/shared/metrics';
import type { ShutdownStep } from '@brand/shared/shutdown';
import type { WebhooksConfig } from '../config';
import { startConsumer, type ConsumerOptions } from './consumer';
import { consumerLagMetrics, consumerMetrics } from './consumerMetrics';

/**
 * Starts the consumer role (WEBHOOKS_ROLES=consumer): reads business events from Kafka,
 * stores each with its deliveries, then commits. Returns the shutdown step that stops it and
 * the connection status readiness shows. Neither a broker refusing the credentials nor none
 * answering holds up the process's start: the consumer connects in the background and retries
 * until the settings are fixed or a broker answers.
 */
export function startConsumerRole(
  config: WebhooksConfig,
  deps: {
    pool: Pool;
    log: Logger;
    registry: Registry;
    onIngested: ConsumerOptions['onIngested'];
    onFeedAdvanced: ConsumerOptions['onFeedAdvanced'];
  },
): { stop: ShutdownStep; status: KafkaConnectionStatus } {
  const { log } = deps;
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: config.KAFKA_CLIENT_ID,
    log,
    security: kafkaClientSecurity(config),
  });
  const status = kafkaConnectionStatus({
    client: config.KAFKA_CLIENT_ID,
    log,
    registry: deps.registry,
  });
  const consumer = startConsumer({
    kafka,
    pool: deps.pool,
    log,
    topic: config.BUSINESS_EVENTS_TOPIC,
    groupId: config.KAFKA_CONSUMER_GROUP,
    ensureTopic: config.KAFKA_ENSURE_TOPIC,
    partitions: config.KAFKA_TOPIC_PARTITIONS,
    onIngested: deps.onIngested,
    onFeedAdvanced: deps.onFeedAdvanced,
    groupTiming: {
      sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
      heartbeatIntervalMs: config.KAFKA_HEARTBEAT_INTERVAL_MS,
      rebalanceTimeoutMs: config.KAFKA_REBALANCE_TIMEOUT_MS,
    },
    observer: consumerMetrics(deps.registry),
    status,
    onFatal: (err) => {
      // Offsets are committed only after the database has the events: exiting loses
      // nothing, and the orchestrator (or the local script) restarts the process.
      log.fatal({ err }, 'the Kafka consumer stopped for good; exiting');
      process.exit(1);
    },
  });
  const lag = consumerLagMetrics(deps.registry, {
    kafka,
    topic: config.BUSINESS_EVENTS_TOPIC,
    groupId: config.KAFKA_CONSUMER_GROUP,
  });
  return {
    status,
    stop: {
      name: 'stop consuming (commits are already done)',
      run: async () => {
        await consumer.stop();
        await lag.close();
      },
    },
  };
}
