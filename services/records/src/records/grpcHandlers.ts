import {
  Resource,
  type ListRecordsRequest,
  type ListRecordsResponse,
  type RecordsServiceServer,
  type ResourceRecord,
  type SeedDemoDataRequest,
  type SeedDemoDataResponse,
} from '@brand/proto/records/v1';
import { AppError } from '@brand/shared/errors';
import { unary } from '@brand/shared/grpc';
import type { Logger } from '@brand/shared/logger';
import { RESOURCES, type ResourceName } from '@brand/shared/resources';
import type { Pool } from '@brand/shared/db';
import type { ServerUnaryCall } from '@grpc/grpc-js';
import type { CursorCodec } from './cursor';
import type { RecordRow } from './recordRepo';
import { listRecords } from './recordService';
import { seedDemoData } from './seedService';

export interface RecordsHandlerDeps {
  pool: Pool;
  cursors: CursorCodec;
  log: Logger;
  requireInternalToken: (call: ServerUnaryCall<unknown, unknown>) => void;
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

/** RESOURCE_CAMPAIGNS → campaigns; anything else (UNSPECIFIED, unknown numbers) → undefined. */
export function resourceNameOf(resource: Resource): ResourceName | undefined {
  return RESOURCES.find(
    (name) => Resource[`RESOURCE_${name.toUpperCase()}` as keyof typeof Resource] === resource,
  );
}

function toResourceRecord(resource: ResourceName, row: RecordRow): ResourceRecord {
  // RecordRow's fields are exactly the proto message's (a unit test keeps them in step).
  return {
    kind: { $case: RECORD_CASE[resource], value: row } as unknown as ResourceRecord['kind'],
  };
}

/** The RecordsService implementation: thin adapters from gRPC onto the record operations. */
export function recordsHandlers(deps: RecordsHandlerDeps): RecordsServiceServer {
  return {
    listRecords: unary<ListRecordsRequest, ListRecordsResponse>(
      deps.log,
      'ListRecords',
      async (req) => {
        const resource = resourceNameOf(req.resource);
        if (resource === undefined) {
          throw new AppError(
            'unknown_resource',
            'resource must be one of the six record resources.',
          );
        }
        if (!req.brand_id) throw new AppError('invalid_parameter', 'brand_id is required.');
        const page = await listRecords(deps, {
          brandId: req.brand_id,
          resource,
          limit: req.limit,
          cursor: req.cursor,
          since: req.since,
        });
        return {
          records: page.records.map((row) => toResourceRecord(resource, row)),
          next_cursor: page.nextCursor,
        };
      },
    ),

    seedDemoData: unary<SeedDemoDataRequest, SeedDemoDataResponse>(
      deps.log,
      'SeedDemoData',
      async (req, { call }) => {
        deps.requireInternalToken(call);
        const created = await seedDemoData(deps.pool, req.brand_id, req.scale || 1);
        return { created };
      },
    ),
  };
}
