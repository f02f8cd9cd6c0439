export { createKafka, type KafkaOptions } from './client';
export {
  BUSINESS_EVENT_CONTENT_TYPE,
  BUSINESS_EVENTS_TOPIC,
  decodeBusinessEvent,
  encodeBusinessEvent,
} from './businessEvents';
export { lazyKafkaClient, type LazyClient } from './lazyClient';
export { canConnect, watchKafkaReachability, type KafkaReachability } from './reachability';
export { kafkaClientSecurity, type KafkaClientSecurity } from './clientSecurity';
export { kafkaConnectionStatus, type KafkaConnectionStatus } from './connectionStatus';
export {
  checkKafkaSecurity,
  KAFKA_SASL_MECHANISMS,
  kafkaSecurityEnv,
  type KafkaSecuritySettings,
} from './securityEnv';
export {
  awaitTopicLeaders,
  createTopicWithLeaders,
  isSettlingTopicError,
  type TopicLeadersOptions,
} from './topics';
