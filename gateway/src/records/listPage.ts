import type { ResourceName } from '@brand/shared/resources';
import type { RecordsApi } from '../clients/recordsClient';
import type { Cancellation } from '../clients/pageStreams/poolSettings';
import type { Identity } from '../auth/identity';
import type { ListParams } from './listParams';

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
  /** With withChangeVersion: the brand's change version of the resource, read before the page. */
  changeVersion?: string;
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
  opts: { withChangeVersion?: boolean; signal?: Cancellation } = {},
): Promise<PageJson> {
  const response = await records.listRecordsPage(
    {
      brandId: identity.brandId,
      resource,
      limit: params.limit,
      cursor: params.cursor,
      since: params.since,
      withChangeVersion: opts.withChangeVersion ?? false,
    },
    requestId,
    opts.signal,
  );
  const version = response.change_version;
  return {
    resource,
    count: response.count,
    head: `{"resource":"${resource}","count":${response.count},"data":`,
    data: response.data_json.length > 0 ? bufferView(response.data_json) : EMPTY_ARRAY,
    tail: response.next_cursor ? `,"next_cursor":${JSON.stringify(response.next_cursor)}}` : '}',
    ...(version === undefined ? {} : { changeVersion: String(version) }),
  };
}

const EMPTY_ARRAY = Buffer.from('[]');

/**
 * The records' bytes as a Buffer over the same memory: the decoded message's bytes field is a
 * view into the message gRPC assembled (ts-proto without env=node; proto/buf.gen.yaml), and a
 * copy would cost a 17 KB allocation and memcpy a page for nothing.
 */
function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The page's JSON as text (MCP's text content). */
export function pageText(page: PageJson): string {
  return `${page.head}${page.data.toString('utf8')}${page.tail}`;
}
