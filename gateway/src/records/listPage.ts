import type { ResourceName } from '@brand/shared/resources';
import type { RecordsApi } from '../clients/recordsClient';
import type { Identity } from '../auth/identity';
import type { ListParams } from './listParams';
import { RECORD_FIELDS } from './recordSchemas';

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
 * One page as the public JSON `{"resource":..,"count":..,"data":[..],"next_cursor":..}`
 * (next_cursor only on a full page), exactly what `JSON.stringify(page)` of the Page
 * schema gives. `data` arrives from the records service already rendered (ListRecordsPage)
 * and is spliced in as bytes: the gateway never decodes and re-encodes records.
 */
export interface PageJson {
  resource: ResourceName;
  count: number;
  /** `{"resource":..,"count":..,"data":` */
  head: string;
  /** The records as a UTF-8 JSON array, as the records service sent it. */
  data: Buffer;
  /** `,"next_cursor":".."}` or `}` */
  tail: string;
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
): Promise<PageJson> {
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
  return {
    resource,
    count: response.count,
    head: `{"resource":"${resource}","count":${response.count},"data":`,
    data: response.data_json.length > 0 ? response.data_json : EMPTY_ARRAY,
    tail: response.next_cursor ? `,"next_cursor":${JSON.stringify(response.next_cursor)}}` : '}',
  };
}

const EMPTY_ARRAY = Buffer.from('[]');

/** The page's JSON as bytes, for an HTTP body (no string round trip of the records). */
export function pageBytes(page: PageJson): Buffer {
  return Buffer.concat([Buffer.from(page.head), page.data, Buffer.from(page.tail)]);
}

/** The page's JSON as text (MCP's text content). */
export function pageText(page: PageJson): string {
  return `${page.head}${page.data.toString('utf8')}${page.tail}`;
}
