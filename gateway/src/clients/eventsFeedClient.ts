import type { ListFeedEventsRequest, ListFeedEventsResponse } from '@brand/proto/webhooks/v1';
import type { Logger } from '@brand/shared/logger';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { traceContextOfSpan, withSpan } from '@brand/shared/telemetry';
import { FEED_PAGES_RPC } from './pageStreams/pageRpcs';
import { PageStreamPool } from './pageStreams/pageStreamPool';
import type {
  Cancellation,
  PageStreamSettings,
  PoolObserver,
  PoolStats,
} from './pageStreams/poolSettings';
import { serviceAddresses } from './pageStreams/serviceAddresses';
import { grpcStreams } from './pageStreams/streamTransport';

const tracer = trace.getTracer('gateway.events-feed-client');
const PAGE_SPAN = { kind: SpanKind.CLIENT, attributes: { 'rpc.method': 'ListFeedEvents' } };

/** What the gateway needs from the webhooks process: pages of a brand's events feed. */
export interface EventsFeedApi {
  /**
   * One ListFeedEvents page, as a message on a feed page stream, within the configured
   * deadline; `signal` withdraws it (its client went away). Rejects with the webhooks
   * service's AppError (invalid_cursor, cursor_expired, ...) or service_unavailable.
   */
  listFeedEvents(
    request: ListFeedEventsRequest,
    requestId: string,
    signal?: Cancellation,
  ): Promise<ListFeedEventsResponse>;
  close(): void;
}

export interface EventsFeedClientSettings {
  deadlineMs: number;
  token: string;
  pageStreams: PageStreamSettings;
  log: Logger;
  /** The pool's metrics (GatewayMetrics.observePageStreams). */
  observe?: (stats: () => PoolStats) => PoolObserver;
}

/**
 * The webhooks process's EventsFeedService (its admin role answers gRPC): every page a
 * message on the feed's page streams (StreamFeedPages), spread over every address
 * WEBHOOKS_GRPC_ADDR resolves to, as records' pages are (docs/internals.md "The page hop").
 */
export function createEventsFeedApi(
  address: string,
  settings: EventsFeedClientSettings,
): EventsFeedApi {
  const streams = grpcStreams(FEED_PAGES_RPC, settings.token);
  let stats: () => PoolStats = () => ({ streamsOpen: 0, inFlight: 0, queued: 0 });
  const pool = new PageStreamPool(
    'webhooks',
    serviceAddresses(address),
    streams.open,
    settings.pageStreams,
    settings.log,
    settings.observe?.(() => stats()),
  );
  stats = () => pool.stats();
  return {
    // withSpan hands a shared non-recording span over at once while tracing is off
    listFeedEvents: (request, requestId, signal) =>
      withSpan(tracer, 'ListFeedEvents (page stream)', PAGE_SPAN, context.active(), (span) => {
        const { traceparent, tracestate } = traceContextOfSpan(span);
        return pool.page({
          page: request,
          requestId,
          timeoutMs: settings.deadlineMs,
          traceparent: traceparent ?? '',
          tracestate: tracestate ?? '',
          signal,
        });
      }),
    close: () => {
      pool.close();
      streams.close();
    },
  };
}
