// @brand/example-receiver: a webhook receiver that verifies deliveries as docs/contract.md#receiver-verification asks.
// Explicit named exports only.
export { dedupeKey, MemoryDedupeStore, processOnce, type DedupeStore } from './dedupe';
export {
  EVENT_TYPES,
  isEventType,
  type DeliveryEvent,
  type EventObject,
  type EventType,
} from './event';
export { sampleEvent } from './sampleEvent';
export { DEFAULT_MAX_BODY_BYTES, readRawBody, type RawBodyResult } from './rawBody';
export {
  baseUrl,
  closeServer,
  createBoundedServer,
  listen,
  msUntilStalledRequestClosed,
  type ServerTls,
} from './listen';
export {
  startReceiver,
  type Outcome,
  type ReceivedDelivery,
  type ReceiverOptions,
  type RunningReceiver,
  type ScriptedResponse,
} from './server';
export {
  computeSignature,
  deliveryHeaders,
  HEADERS,
  signDelivery,
  type SignedHeaders,
} from './sign';
export {
  DEFAULT_TOLERANCE_SECONDS,
  verifyDelivery,
  type HeaderBag,
  type RefusalReason,
  type Verdict,
  type VerifyOptions,
} from './verify';
export { loadReceiverConfig, type ReceiverConfig } from './config';
export {
  ConfigError,
  parseEventList,
  parsePort,
  parseSecretList,
  parseTlsFiles,
} from './envParsing';
