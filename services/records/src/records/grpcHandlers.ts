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
import type { RpcBuilder } from '@brand/shared/grpc';
import { RESOURCES } from '@brand/shared/resources';
import type { VersionPublisher } from '../versions/versionPublisher';
import type { CursorCodec } from './cursor';
import { listRecordsJson, type ListRequest } from './recordService';
import { seedDemoData } from './seedService';

export interface RecordsHandlerDeps {
  pool: Pool;
  cursors: CursorCodec;
  versions: VersionPublisher;
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
    withChangeVersion: req.with_change_version,
  };
}

/** The RecordsService implementation: thin adapters from gRPC onto the record operations. */
export function recordsHandlers(
  deps: RecordsHandlerDeps,
  rpc: RpcBuilder,
): Pick<RecordsServiceServer, 'listRecordsPage' | 'seedDemoData'> {
  return {
    listRecordsPage: rpc.internal<ListRecordsPageRequest, ListRecordsPageResponse>(
      'ListRecordsPage',
      async (req) => {
        const page = await listRecordsJson(deps, listRequestOf(req));
        return {
          data_json: Buffer.from(page.json),
          count: page.count,
          next_cursor: page.nextCursor,
          change_version: page.changeVersion === undefined ? undefined : Number(page.changeVersion),
        };
      },
    ),

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
