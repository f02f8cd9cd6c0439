import type { ListRecordsPageRequest, ListRecordsPageResponse } from '@brand/proto/records/v1';
import { PageStreams, type AnswerPage, type PageStreamSettings } from '@brand/shared/grpc';

/** StreamRecordsPages's server side: records' pages on the shared page streams. */
export type RecordsPageStreams = PageStreams<ListRecordsPageRequest, ListRecordsPageResponse>;

/**
 * Records' page streams (StreamRecordsPages, proto/brand/records/v1), answering each page with
 * `answer`, the unary ListRecordsPage's own function. The stream itself (its messages,
 * concurrency, time budgets, cancels, the drain) is the shared PageStreams
 * (packages/shared/src/grpc/pageStreamServer.ts), as for the events feed's stream.
 */
export function recordsPageStreams(
  answer: AnswerPage<ListRecordsPageRequest, ListRecordsPageResponse>,
  settings: PageStreamSettings,
): RecordsPageStreams {
  return new PageStreams<ListRecordsPageRequest, ListRecordsPageResponse>(
    {
      method: 'StreamRecordsPages',
      pageMethod: 'ListRecordsPage',
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
    },
    answer,
    settings,
  );
}
