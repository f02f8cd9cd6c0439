import type {
  ListFeedEventsRequest,
  ListFeedEventsResponse,
  StreamFeedPagesRequest,
  StreamFeedPagesResponse,
} from '@brand/proto/webhooks/v1';
import {
  PageStreams,
  type AnswerPage,
  type PageStreamMessages,
  type PageStreamSettings,
} from '@brand/shared/grpc';

/** StreamFeedPages's server side: the feed's pages on the shared page streams. */
export type FeedPageStreams = PageStreams<
  StreamFeedPagesRequest,
  StreamFeedPagesResponse,
  ListFeedEventsRequest,
  ListFeedEventsResponse
>;

/**
 * The messages of StreamFeedPages (proto/brand/webhooks/v1): FeedPageCall and FeedPageCancel
 * in, FeedPageAnswer and FeedStreamDraining out. The stream itself (concurrency, time
 * budgets, cancels, the drain) is the shared PageStreams, as for records' pages.
 */
const FEED_PAGE_MESSAGES: PageStreamMessages<
  StreamFeedPagesRequest,
  StreamFeedPagesResponse,
  ListFeedEventsRequest,
  ListFeedEventsResponse
> = {
  method: 'StreamFeedPages',
  pageMethod: 'ListFeedEvents',
  read: (message) => {
    const kind = message.kind;
    if (kind?.$case === 'cancel') return { cancel: kind.value.call_id };
    if (kind?.$case === 'call') return { call: kind.value };
    return undefined;
  },
  answer: (callId, outcome) => ({
    kind: {
      $case: 'answer',
      value: {
        call_id: callId,
        outcome:
          'page' in outcome
            ? { $case: 'page', value: outcome.page }
            : { $case: 'failure', value: outcome.failure },
      },
    },
  }),
  draining: () => ({ kind: { $case: 'draining', value: {} } }),
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
};

/** The feed's page streams, answering each page with `answer` (ListFeedEvents's own function). */
export function feedPageStreams(
  answer: AnswerPage<ListFeedEventsRequest, ListFeedEventsResponse>,
  settings: PageStreamSettings,
): FeedPageStreams {
  return new PageStreams(FEED_PAGE_MESSAGES, answer, settings);
}
