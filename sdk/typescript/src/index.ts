// @brand-records/client: the Brand Records API client. Webhook verification is also exported
// on its own from '@brand-records/client/webhooks' (no client code, for edge runtimes).
// Explicit named exports only.
export {
  BrandRecords,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type BrandRecordsOptions,
} from './client.js';
export {
  ApiError,
  BrandRecordsError,
  ConnectionError,
  TimeoutError,
  type ApiErrorInit,
  type FieldIssue,
} from './errors/brandRecordsError.js';
export {
  AlreadyExistsError,
  API_ERROR_CLASSES,
  CursorExpiredError,
  ExpectationFailedError,
  ForbiddenOriginError,
  HeadersTooLargeError,
  NetworkNotAllowedError,
  InsufficientPermissionError,
  InternalError,
  InvalidCursorError,
  InvalidKeyError,
  InvalidParameterError,
  MalformedRequestError,
  MethodNotAllowedError,
  MissingKeyError,
  NotFoundError,
  PayloadTooLargeError,
  PendingPlanLimitError,
  PositionBeyondHeadError,
  PreconditionFailedError,
  RateLimitedError,
  ReceiverLimitError,
  RequestConflictError,
  RequestTimeoutError,
  RetryAfterError,
  ServiceUnavailableError,
  UnauthenticatedError,
  UnknownResourceError,
  UnsupportedMediaTypeError,
  ValidationFailedError,
  type ApiErrorCode,
} from './errors/codeErrors.js';
export type { RateLimitInfo, ResponseMeta } from './responseMeta.js';
export { DEFAULT_RETRY_TUNING, type RetryTuning } from './http/retryPolicy.js';
export {
  type CampaignPlan,
  type CampaignPlanInput,
  type PrepareOptions,
  type PreparedCampaignPlan,
} from './plans/campaignPlans.js';
export {
  RESOURCE_NAMES,
  type Campaign,
  type Conversion,
  type Deposit,
  type Envelope,
  type Link,
  type Payout,
  type RecordsByResource,
  type ResourceName,
  type Submission,
} from './records/recordTypes.js';
export {
  WALK_PAGE_SIZE,
  type ListParams,
  type NotModified,
  type Page,
  type PollParams,
  type PollResult,
  type RecordsResource,
  type WalkParams,
} from './records/recordsResource.js';
export { type RetrieveOptions, type Retrieved } from './records/retrieveRecord.js';
export { VERSION } from './version.js';
export {
  type EventFilters,
  type EventsEnvelope,
  type EventsListParams,
  type EventsPage,
  type FeedEvent,
  type FeedEventType,
} from './events/eventTypes.js';
export { type EventsResource } from './events/eventsResource.js';
export {
  type AuditEntry,
  type AuditLogEnvelope,
  type AuditLogListParams,
  type AuditLogPage,
  type AuditLogResource,
} from './auditLog/auditLogResource.js';
export { type EventsPollResult } from './events/eventTypes.js';
export {
  checkpointAfterPage,
  FROM_OLDEST,
  isFollowCheckpoint,
  type FollowCheckpoint,
} from './events/followCheckpoint.js';
export { MIN_FOLLOW_INTERVAL_MS, type FollowOptions, type FollowWait } from './events/follower.js';
export { followBackoffMs } from './events/followBackoff.js';
export {
  verifyAuditStreamDelivery,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookEventType,
} from './webhooks/index.js';
