// @brand-records/client/webhooks: verifying signed deliveries (docs/contract.md#receiver-verification)
// and HTTPS audit stream runs (docs/console.md#audit-streams). Uses only Web
// Crypto, TextEncoder and (for the fetch handler) Response, so it runs in Node 20+ and in edge
// runtimes alike. Explicit named exports only.
export {
  isWebhookEventType,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookObject,
  type WebhookObjects,
} from './eventTypes.js';
export { WEBHOOK_HEADERS } from './deliveryHeaders.js';
export {
  memoryDeduplication,
  webhookDeduplicationKey,
  type WebhookDeduplication,
} from './deduplication.js';
export type { WebhookHeaders } from './headerValue.js';
export { DEFAULT_MAX_BODY_BYTES, type WebhookRawBody } from './rawBody.js';
export {
  WEBHOOK_REFUSAL_STATUS,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './verificationError.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  verifyWebhook,
  verifyWebhookDelivery,
  type VerifiedWebhook,
  type VerifyWebhookOptions,
} from './verifyWebhook.js';
export type { AuditEntry } from './auditEntries.js';
export {
  verifyAuditStreamDelivery,
  type VerifiedAuditStreamDelivery,
  type VerifyAuditStreamOptions,
} from './verifyAuditStream.js';
export type { HandlerOutcome, WebhookHandlerOptions } from './handlerOutcome.js';
export {
  readNodeRawBody,
  verifyNodeAuditStream,
  verifyNodeWebhook,
  webhookExpressHandler,
  webhookNodeHandler,
  type NodeRequestLike,
  type NodeResponseLike,
} from './nodeHttp.js';
export { verifyWebhookRequest, webhookFetchHandler, type WebRequestLike } from './webRequest.js';
export { signWebhookForTest } from './signWebhook.js';
