import type { ResourceName } from '@brand/shared/resources';
import type { RecordsApi } from '../clients/recordsClient';
import type { Identity } from '../auth/identity';
import type { ListParams } from './listParams';
import { RECORD_FIELDS, type Page } from './recordSchemas';

/**
 * Keeps exactly the public fields of a record, in schema order, with absent values as
 * null: proto3 leaves unset optionals undefined, and JSON clients expect every key.
 * (The records service renders pages this way itself now; see ListRecordsPage.)
 */
export function toPublicRecord(resource: ResourceName, record: object): Record<string, unknown> {
  const source = record as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of RECORD_FIELDS[resource]) out[field] = source[field] ?? null;
  return out;
}

/**
 * One page as the public JSON text `{"resource":..,"count":..,"data":[..],"next_cursor":..}`
 * (next_cursor only on a full page), exactly what `JSON.stringify(page)` of the Page
 * schema gives. `data` arrives from the records service already rendered (ListRecordsPage)
 * and is spliced in as is: the gateway never decodes and re-encodes records.
 */
export interface PageText {
  resource: ResourceName;
  count: number;
  /** The whole page as JSON text. */
  json: string;
}

/**
 * One page of a brand's resource, for REST and MCP alike. The brand is the key's
 * (SPEC 1.1); nothing in `params` can change it. Rejects with the records service's
 * AppError (invalid_parameter, invalid_cursor, service_unavailable, ...).
 */
export async function listPage(
  records: RecordsApi,
  identity: Identity,
  resource: ResourceName,
  params: ListParams,
  requestId: string,
): Promise<PageText> {
  const response = await records.listRecordsPage(
    {
      brandId: identity.brandId,
      resource,
      limit: params.limit,
      cursor: params.cursor,
      since: params.since,
    },
    requestId,
  );
  const data = response.data_json.length > 0 ? response.data_json.toString('utf8') : '[]';
  const tail = response.next_cursor
    ? `,"next_cursor":${JSON.stringify(response.next_cursor)}}`
    : '}';
  return {
    resource,
    count: response.count,
    json: `{"resource":"${resource}","count":${response.count},"data":${data}${tail}`,
  };
}

/** The page as a value (MCP's structuredContent): parsed once from its JSON text. */
export function pageValue(page: PageText): Page {
  return JSON.parse(page.json) as Page;
}
