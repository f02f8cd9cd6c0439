import type { ResourceName } from '@brand/shared/resources';
import type { RecordsApi } from '../clients/recordsClient';
import type { Identity } from '../auth/identity';
import type { ListParams } from './listParams';
import { RECORD_FIELDS, type Page } from './recordSchemas';

/**
 * Keeps exactly the public fields of a record, in schema order, with absent values as
 * null: proto3 leaves unset optionals undefined, and JSON clients expect every key.
 */
export function toPublicRecord(resource: ResourceName, record: object): Record<string, unknown> {
  const source = record as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of RECORD_FIELDS[resource]) out[field] = source[field] ?? null;
  return out;
}

/**
 * One page of a brand's resource, for REST and MCP alike. The brand is the key's
 * (SPEC 1.1); nothing in `params` can change it.
 */
export async function listPage(
  records: RecordsApi,
  identity: Identity,
  resource: ResourceName,
  params: ListParams,
  requestId: string,
): Promise<Page> {
  const response = await records.listRecords(
    {
      brandId: identity.brandId,
      resource,
      limit: params.limit,
      cursor: params.cursor,
      since: params.since,
    },
    requestId,
  );
  const data = response.records.flatMap((r) =>
    r.kind ? [toPublicRecord(resource, r.kind.value)] : [],
  );
  return {
    resource,
    count: data.length,
    data,
    ...(response.next_cursor ? { next_cursor: response.next_cursor } : {}),
  } as Page;
}
