import { AccessServiceClient, type AuthenticateKeyResponse } from '@brand/proto/access/v1';
import type { ListRecordsPageResponse } from '@brand/proto/records/v1';
import { UsageServiceClient, type RecordUsageRequest } from '@brand/proto/access/v1/usage';
import { ENVIRONMENTS, RESOURCE_ENUM } from '@brand/shared/enums';
import { connectClient, createCaller, HealthClient, type ServingStatus } from '@brand/shared/grpc';
import type { KeyEnvironment } from '@brand/shared/keys';
import type { Logger } from '@brand/shared/logger';
import type { ResourceName } from '@brand/shared/resources';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { traceContextOfSpan, withSpan } from '@brand/shared/telemetry';
import { PageStreamPool } from './pageStreams/pageStreamPool';
import type {
  Cancellation,
  PageStreamSettings,
  PoolObserver,
  PoolStats,
} from './pageStreams/poolSettings';
import { RECORDS_PAGES_RPC } from './pageStreams/pageRpcs';
import { serviceAddresses } from './pageStreams/serviceAddresses';
import { grpcStreams } from './pageStreams/streamTransport';

const tracer = trace.getTracer('gateway.records-client');
const PAGE_SPAN = { kind: SpanKind.CLIENT, attributes: { 'rpc.method': 'ListRecordsPage' } };

interface ListRecordsCall {
  brandId: string;
  resource: ResourceName;
  limit: number | undefined;
  cursor: string | undefined;
  since: string | undefined;
  /** The one record of this id instead of a page (GET /api/v1/{resource}/{id}). */
  id?: string;
  withChangeVersion: boolean;
}

/** What the gateway needs from the records process. Every call has the configured deadline. */
export interface RecordsApi {
  /**
   * One page, its records already rendered as the public JSON array, as a message on a page
   * stream (pageStreams/pageStreamPool.ts); with `id`, the page of that one record or none
   * (records/recordById.ts). `signal` withdraws it (its client went away).
   */
  listRecordsPage(
    call: ListRecordsCall,
    requestId: string,
    signal?: Cancellation,
  ): Promise<ListRecordsPageResponse>;
  authenticateKey(
    keyHashHex: string,
    environment: KeyEnvironment,
    requestId: string,
  ): Promise<AuthenticateKeyResponse>;
  /** One flush of the usage buffer (UsageService.RecordUsage). */
  recordUsage(
    batch: Omit<RecordUsageRequest, 'environment'>,
    environment: KeyEnvironment,
  ): Promise<void>;
  health(): Promise<ServingStatus>;
  close(): void;
}

export interface RecordsClientSettings {
  deadlineMs: number;
  token: string;
  pageStreams: PageStreamSettings;
  log: Logger;
  /** The pool's metrics (GatewayMetrics.observePageStreams). */
  observe?: (stats: () => PoolStats) => PoolObserver;
}

/**
 * The records process's RecordsService, AccessService and health: pages on the page-stream
 * pool, every other call unary over one channel. This file only maps domain values to
 * messages; createCaller adds the credential, the deadline and the error mapping (AppErrors:
 * the service's own code, or service_unavailable), the pool the same for pages.
 */
export function createRecordsApi(address: string, settings: RecordsClientSettings): RecordsApi {
  const streams = grpcStreams(RECORDS_PAGES_RPC, settings.token);
  let stats: () => PoolStats = () => ({ streamsOpen: 0, inFlight: 0, queued: 0 });
  const pool = new PageStreamPool(
    'records',
    serviceAddresses(address),
    streams.open,
    settings.pageStreams,
    settings.log,
    settings.observe?.(() => stats()),
  );
  stats = () => pool.stats();
  const accessClient = connectClient(AccessServiceClient, address);
  const access = createCaller(accessClient, settings);
  const usage = createCaller(connectClient(UsageServiceClient, address, accessClient), settings);
  const health = new HealthClient(connectClient(HealthClient.Stub, address, accessClient));

  const listRequest = (call: ListRecordsCall) => ({
    brand_id: call.brandId,
    resource: RESOURCE_ENUM.toProto(call.resource),
    limit: call.limit,
    cursor: call.cursor,
    since: call.since,
    id: call.id,
    with_change_version: call.withChangeVersion,
  });
  return {
    // withSpan hands a shared non-recording span over at once while tracing is off
    listRecordsPage: (call, requestId, signal) =>
      withSpan(tracer, 'ListRecordsPage (page stream)', PAGE_SPAN, context.active(), (span) => {
        const { traceparent, tracestate } = traceContextOfSpan(span);
        return pool.page({
          page: listRequest(call),
          requestId,
          timeoutMs: settings.deadlineMs,
          traceparent: traceparent ?? '',
          tracestate: tracestate ?? '',
          signal,
        });
      }),
    authenticateKey: (keyHashHex, environment, requestId) =>
      access(
        'authenticateKey',
        // this gateway checks allowed_networks (auth/authenticator.ts)
        {
          key_hash: keyHashHex,
          environment: ENVIRONMENTS.toProto(environment),
          enforces_networks: true,
        },
        { requestId },
      ),
    recordUsage: async (batch, environment) => {
      await usage(
        'recordUsage',
        { ...batch, environment: ENVIRONMENTS.toProto(environment) },
        {
          requestId: `usage_${batch.batch_id}`,
        },
      );
    },
    health: () => health.check(settings.deadlineMs),
    close: () => {
      pool.close();
      streams.close();
      accessClient.close();
    },
  };
}
