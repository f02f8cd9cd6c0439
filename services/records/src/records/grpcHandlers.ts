import type {
  ListRecordsRequest,
  ListRecordsPageRequest,
  ListRecordsPageResponse,
  ListRecordsResponse,
  RecordsServiceServer,
  ResourceRecord,
  SeedDemoDataRequest,
  SeedDemoDataResponse,
} from '@brand/proto/records/v1';
import type { Pool } from '@brand/shared/db';
import { RESOURCE_ENUM } from '@brand/shared/enums';
import { AppError } from '@brand/shared/errors';
import type { RpcBuilder } from '@brand/shared/grpc';
import type { ResourceName } from '@brand/shared/resources';
import type { CursorCodec } from './cursor';
import type { RecordRow } from './recordRepo';
import { listRecords, listRecordsJson, type ListRequest } from './recordService';
import { seedDemoData } from './seedService';

export interface RecordsHandlerDeps {
  pool: Pool;
  cursors: CursorCodec;
}

/** The oneof case that carries each resource's records. */
const RECORD_CASE = {
  campaigns: 'campaign',
  submissions: 'submission',
  payouts: 'payout',
  deposits: 'deposit',
  conversions: 'conversion',
  links: 'link',
} as const satisfies Record<ResourceName, NonNullable<ResourceRecord['kind']>['$case']>;

/** The domain request of ListRecords and ListRecordsPage; refuses a missing resource or brand. */
function listRequestOf(req: ListRecordsRequest | ListRecordsPageRequest): ListRequest {
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
  };
}

function toResourceRecord(resource: ResourceName, row: RecordRow): ResourceRecord {
  // RecordRow's fields are exactly the proto message's (a unit test keeps them in step).
  return {
    kind: { $case: RECORD_CASE[resource], value: row } as unknown as ResourceRecord['kind'],
  };
}

/** The RecordsService implementation: thin adapters from gRPC onto the record operations. */
export function recordsHandlers(
  deps: RecordsHandlerDeps,
  rpc: RpcBuilder,
): Pick<RecordsServiceServer, 'listRecords' | 'listRecordsPage' | 'seedDemoData'> {
  return {
    listRecords: rpc.internal<ListRecordsRequest, ListRecordsResponse>(
      'ListRecords',
      async (req) => {
        const request = listRequestOf(req);
        const page = await listRecords(deps, request);
        return {
          records: page.records.map((row) => toResourceRecord(request.resource, row)),
          next_cursor: page.nextCursor,
        };
      },
    ),

    listRecordsPage: rpc.internal<ListRecordsPageRequest, ListRecordsPageResponse>(
      'ListRecordsPage',
      async (req) => {
        const page = await listRecordsJson(deps, listRequestOf(req));
        return {
          data_json: Buffer.from(page.json),
          count: page.count,
          next_cursor: page.nextCursor,
        };
      },
    ),

    seedDemoData: rpc.admin<SeedDemoDataRequest, SeedDemoDataResponse>(
      'SeedDemoData',
      async (req) => ({ created: await seedDemoData(deps.pool, req.brand_id, req.scale || 1) }),
    ),
  };
}
