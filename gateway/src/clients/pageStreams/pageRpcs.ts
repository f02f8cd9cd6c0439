import {
  RecordsServiceClient,
  RecordsServiceService,
  type ListRecordsPageRequest,
  type ListRecordsPageResponse,
} from '@brand/proto/records/v1';
import {
  EventsFeedServiceClient,
  EventsFeedServiceService,
  type ListFeedEventsRequest,
  type ListFeedEventsResponse,
} from '@brand/proto/webhooks/v1';
import type { PageStreamRequest, PageStreamResponse } from '@brand/shared/grpc';
import { serializeStreamRecordsPagesRequest } from './pageCallWire';
import type { PageStreamRpc } from './streamTransport';

/**
 * The gateway's two page hops, each an RPC for the one PageStreamPool: records' pages
 * (StreamRecordsPages) and the events feed's (StreamFeedPages). Their generated messages are
 * alike, message for message: PageStreamRequest and PageStreamResponse of @brand/shared/grpc.
 */

/** StreamRecordsPages, its calls written by pageCallWire.ts (the generated encoder's bytes). */
export const RECORDS_PAGES_RPC: PageStreamRpc<
  PageStreamRequest<ListRecordsPageRequest>,
  PageStreamResponse<ListRecordsPageResponse>
> = {
  Client: RecordsServiceClient,
  path: RecordsServiceService.streamRecordsPages.path,
  serialize: serializeStreamRecordsPagesRequest,
  deserialize: RecordsServiceService.streamRecordsPages.responseDeserialize,
};

/** StreamFeedPages: the events feed's pages from the webhooks process's admin role. */
export const FEED_PAGES_RPC: PageStreamRpc<
  PageStreamRequest<ListFeedEventsRequest>,
  PageStreamResponse<ListFeedEventsResponse>
> = {
  Client: EventsFeedServiceClient,
  path: EventsFeedServiceService.streamFeedPages.path,
  serialize: EventsFeedServiceService.streamFeedPages.requestSerialize,
  deserialize: EventsFeedServiceService.streamFeedPages.responseDeserialize,
};
