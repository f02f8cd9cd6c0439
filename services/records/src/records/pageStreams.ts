import type {
  ListRecordsPageRequest,
  ListRecordsPageResponse,
  StreamRecordsPagesRequest,
  StreamRecordsPagesResponse,
} from '@brand/proto/records/v1';
import { PageStreams, type AnswerPage, type PageStreamMessages } from '@brand/shared/grpc';

/** StreamRecordsPages's server side: records' pages on the shared page streams. */
export type RecordsPageStreams = PageStreams<
  StreamRecordsPagesRequest,
  StreamRecordsPagesResponse,
  ListRecordsPageRequest,
  ListRecordsPageResponse
>;

/**
 * The messages of StreamRecordsPages (proto/brand/records/v1): PageCall and PageCancel in,
 * PageAnswer and StreamDraining out. The stream itself (concurrency, time budgets, cancels,
 * the drain) is the shared PageStreams (packages/shared/src/grpc/pageStreamServer.ts), as
 * for the events feed's stream.
 */
const RECORDS_PAGE_MESSAGES: PageStreamMessages<
  StreamRecordsPagesRequest,
  StreamRecordsPagesResponse,
  ListRecordsPageRequest,
  ListRecordsPageResponse
> = {
  method: 'StreamRecordsPages',
  pageMethod: 'ListRecordsPage',
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
  // a PageCall without its page: the handler refuses it as ListRecordsPage would
  emptyRequest: () => ({
    brand_id: '',
    resource: 0,
    limit: undefined,
    cursor: undefined,
    since: undefined,
    with_change_version: false,
    id: undefined,
  }),
};

/** Records' page streams, answering each page with `answer` (the unary RPC's own function). */
export function recordsPageStreams(
  answer: AnswerPage<ListRecordsPageRequest, ListRecordsPageResponse>,
  settings: ConstructorParameters<typeof PageStreams>[2],
): RecordsPageStreams {
  return new PageStreams(RECORDS_PAGE_MESSAGES, answer, settings);
}
