import type {
  ListRecordsPageRequest,
  ListRecordsPageResponse,
  RecordsServiceServer,
  SeedDemoDataRequest,
  SeedDemoDataResponse,
} from '@brand/proto/records/v1';
import type { Pool } from '@brand/shared/db';
import { RESOURCE_ENUM } from '@brand/shared/enums';
import { AppError } from '@brand/shared/errors';
import { utf8Bytes, type RpcBuilder } from '@brand/shared/grpc';
import type { RpcObserver } from '@brand/shared/metrics';
import { RESOURCES } from '@brand/shared/resources';
import type { VersionPublisher } from '../versions/versionPublisher';
import type { CursorCodec } from './cursor';
import { recordsPageStreams, type RecordsPageStreams } from './pageStreams';
import { listRecordsJson, type ListRequest, type PageSignal } from './recordService';
import { seedDemoData } from './seedService';

export interface RecordsHandlerDeps {
  pool: Pool;
  cursors: CursorCodec;
  versions: VersionPublisher;
  /** Pages one StreamRecordsPages stream may have in flight (PAGE_STREAM_MAX_IN_FLIGHT). */
  pageStreamMaxInFlight: number;
  metrics?: RpcObserver;
}

/** The domain request of ListRecordsPage; refuses a missing resource or brand. */
function listRequestOf(req: ListRecordsPageRequest): ListRequest {
  const resource = RESOURCE_ENUM.fromProto(req.resource);
  if (resource === undefined) {
    throw new AppError('unknown_resource', 'resource must be one of the six record resources.');
  }
  if (!req.brand_id) throw new AppError('invalid_parameter', 'brand_id is required.');
  return {
    brandId: req.brand_id,
    resource,
    limit: req.limit,
    cursor: req.cursor,
    since: req.since,
    id: req.id,
    withChangeVersion: req.with_change_version,
  };
}

/**
 * One page, as ListRecordsPage answers it and as a PageCall on a stream is answered: the one
 * function both run. With a signal, the page's queries are not started once it aborted.
 */
async function answerListRecordsPage(
  deps: Pick<RecordsHandlerDeps, 'pool' | 'cursors'> & { signal?: PageSignal },
  req: ListRecordsPageRequest,
): Promise<ListRecordsPageResponse> {
  const page = await listRecordsJson(deps, listRequestOf(req));
  return {
    data_json: utf8Bytes(page.json),
    count: page.count,
    next_cursor: page.nextCursor,
    change_version: page.changeVersion === undefined ? undefined : Number(page.changeVersion),
  };
}

/** The RecordsService implementation: thin adapters from gRPC onto the record operations. */
export function recordsHandlers(
  deps: RecordsHandlerDeps,
  rpc: RpcBuilder,
): {
  handlers: Pick<RecordsServiceServer, 'listRecordsPage' | 'streamRecordsPages' | 'seedDemoData'>;
  pageStreams: RecordsPageStreams;
} {
  const pageStreams = recordsPageStreams(
    (req, signal) => answerListRecordsPage({ pool: deps.pool, cursors: deps.cursors, signal }, req),
    { maxInFlight: deps.pageStreamMaxInFlight, metrics: deps.metrics },
  );
  return { handlers: handlersOf(deps, rpc, pageStreams), pageStreams };
}

function handlersOf(
  deps: RecordsHandlerDeps,
  rpc: RpcBuilder,
  pageStreams: RecordsPageStreams,
): Pick<RecordsServiceServer, 'listRecordsPage' | 'streamRecordsPages' | 'seedDemoData'> {
  return {
    listRecordsPage: rpc.internal<ListRecordsPageRequest, ListRecordsPageResponse>(
      'ListRecordsPage',
      (req) => answerListRecordsPage(deps, req),
    ),

    streamRecordsPages: rpc.internalStream('StreamRecordsPages', pageStreams.serve),

    seedDemoData: rpc.admin<SeedDemoDataRequest, SeedDemoDataResponse>(
      'SeedDemoData',
      async (req) => {
        const created = await seedDemoData(deps.pool, req.brand_id, req.scale || 1);
        await deps.versions.published(req.brand_id, RESOURCES);
        return { created };
      },
    ),
  };
}
