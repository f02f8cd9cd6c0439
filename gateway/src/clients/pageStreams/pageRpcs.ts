import {
  RecordsServiceClient,
  RecordsServiceService,
  type ListRecordsPageRequest,
  type ListRecordsPageResponse,
  type StreamRecordsPagesRequest,
  type StreamRecordsPagesResponse,
} from '@brand/proto/records/v1';
import {
  EventsFeedServiceClient,
  EventsFeedServiceService,
  type ListFeedEventsRequest,
  type ListFeedEventsResponse,
  type StreamFeedPagesRequest,
  type StreamFeedPagesResponse,
} from '@brand/proto/webhooks/v1';
import { serializeStreamRecordsPagesRequest } from './pageCallWire';
import type { PageStreamEnvelope, PageStreamRpc } from './streamTransport';

/**
 * The two page hops of the gateway, each an RPC and its messages for the one PageStreamPool:
 * records' pages (StreamRecordsPages) and the events feed's (StreamFeedPages). Both RPCs have
 * the same shape (a call or a cancel in, an answer or a drain notice out), message by message.
 */

/** StreamRecordsPages, its calls written by pageCallWire.ts (the generated encoder's bytes). */
export const RECORDS_PAGES_RPC: PageStreamRpc<
  StreamRecordsPagesRequest,
  StreamRecordsPagesResponse
> = {
  Client: RecordsServiceClient,
  path: RecordsServiceService.streamRecordsPages.path,
  serialize: serializeStreamRecordsPagesRequest,
  deserialize: RecordsServiceService.streamRecordsPages.responseDeserialize,
};

export const RECORDS_PAGES: PageStreamEnvelope<
  StreamRecordsPagesRequest,
  StreamRecordsPagesResponse,
  ListRecordsPageRequest,
  ListRecordsPageResponse
> = {
  call: (call) => ({ kind: { $case: 'call', value: call } }),
  cancel: (callId) => ({ kind: { $case: 'cancel', value: { call_id: callId } } }),
  read: (message) => {
    const kind = message.kind;
    if (kind?.$case === 'draining') return { draining: true };
    if (kind?.$case !== 'answer') return undefined;
    const outcome = kind.value.outcome;
    return {
      callId: kind.value.call_id,
      outcome:
        outcome?.$case === 'page'
          ? { page: outcome.value }
          : outcome?.$case === 'failure'
            ? { failure: outcome.value }
            : undefined,
    };
  },
};

/** StreamFeedPages: the events feed's pages from the webhooks process's admin role. */
export const FEED_PAGES_RPC: PageStreamRpc<StreamFeedPagesRequest, StreamFeedPagesResponse> = {
  Client: EventsFeedServiceClient,
  path: EventsFeedServiceService.streamFeedPages.path,
  serialize: EventsFeedServiceService.streamFeedPages.requestSerialize,
  deserialize: EventsFeedServiceService.streamFeedPages.responseDeserialize,
};

export const FEED_PAGES: PageStreamEnvelope<
  StreamFeedPagesRequest,
  StreamFeedPagesResponse,
  ListFeedEventsRequest,
  ListFeedEventsResponse
> = {
  call: (call) => ({ kind: { $case: 'call', value: call } }),
  cancel: (callId) => ({ kind: { $case: 'cancel', value: { call_id: callId } } }),
  read: (message) => {
    const kind = message.kind;
    if (kind?.$case === 'draining') return { draining: true };
    if (kind?.$case !== 'answer') return undefined;
    const outcome = kind.value.outcome;
    return {
      callId: kind.value.call_id,
      outcome:
        outcome?.$case === 'page'
          ? { page: outcome.value }
          : outcome?.$case === 'failure'
            ? { failure: outcome.value }
            : undefined,
    };
  },
};
