import type { ListFeedEventsRequest, ListFeedEventsResponse } from '@brand/proto/webhooks/v1';
import { PageStreams, type AnswerPage, type PageStreamSettings } from '@brand/shared/grpc';

/** StreamFeedPages's server side: the feed's pages on the shared page streams. */
export type FeedPageStreams = PageStreams<ListFeedEventsRequest, ListFeedEventsResponse>;

/**
 * The feed's page streams (StreamFeedPages, proto/brand/webhooks/v1), answering each page with
 * `answer`, the unary ListFeedEvents's own function. The stream itself (its messages,
 * concurrency, time budgets, cancels, the drain) is the shared PageStreams, as for records'.
 */
export function feedPageStreams(
  answer: AnswerPage<ListFeedEventsRequest, ListFeedEventsResponse>,
  settings: PageStreamSettings,
): FeedPageStreams {
  return new PageStreams<ListFeedEventsRequest, ListFeedEventsResponse>(
    {
      method: 'StreamFeedPages',
      pageMethod: 'ListFeedEvents',
      // a call without its page: refused as ListFeedEvents refuses a request without a brand
      emptyRequest: () => ({
        brand_id: '',
        limit: 0,
        cursor: '',
        forward: false,
        after: 0,
        types: [],
        record_id: '',
        since: '',
        until: '',
        as_data_json: false,
      }),
    },
    answer,
    settings,
  );
}
