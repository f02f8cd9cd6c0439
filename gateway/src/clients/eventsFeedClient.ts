import {
  EventsFeedServiceClient,
  type ListFeedEventsRequest,
  type ListFeedEventsResponse,
} from '@brand/proto/webhooks/v1';
import { connectClient, createCaller } from '@brand/shared/grpc';

/** What the gateway needs from the webhooks process: pages of a brand's events feed. */
export interface EventsFeedApi {
  /** ListFeedEvents with the configured deadline; rejects with the service's AppError. */
  listFeedEvents(
    request: ListFeedEventsRequest,
    requestId: string,
  ): Promise<ListFeedEventsResponse>;
  close(): void;
}

/**
 * The webhooks process's EventsFeedService over one channel (the admin role answers gRPC).
 * createCaller adds the credential, the deadline and the error mapping.
 */
export function createEventsFeedApi(
  address: string,
  settings: { deadlineMs: number; token: string },
): EventsFeedApi {
  const client = connectClient(EventsFeedServiceClient, address);
  const feed = createCaller(client, settings);
  return {
    listFeedEvents: (request, requestId) => feed('listFeedEvents', request, { requestId }),
    close: () => client.close(),
  };
}
