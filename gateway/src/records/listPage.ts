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
  /**
   * The records as a UTF-8 JSON array, as the records service sent it. Taken once, by
   * takeData, by whoever writes the answer.
   */
  data: Buffer;
  /** `,"next_cursor":".."}` or `}` */
  tail: string;
  /** With withChangeVersion: the brand's change version of the resource, read before the page. */
  changeVersion?: string;
}

/**
 * One page of a brand's resource, for REST and MCP alike. The brand is the key's
 * (docs/contract.md#scope-and-rules); nothing in `params` can change it. Rejects with the records service's
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
  const data = response.data_json.length > 0 ? bufferView(response.data_json) : EMPTY_ARRAY;
  // the promise that resolved with the response keeps it: it must not keep the page (takeData)
  response.data_json = NO_BYTES;
  return {
    resource,
    count: response.count,
    head: `{"resource":"${resource}","count":${response.count},"data":`,
    data,
    tail: response.next_cursor ? `,"next_cursor":${JSON.stringify(response.next_cursor)}}` : '}',
    ...(version === undefined ? {} : { changeVersion: String(version) }),
  };
}

const EMPTY_ARRAY = Buffer.from('[]');
const NO_BYTES = new Uint8Array(0);
const TAKEN = Buffer.alloc(0);

/**
 * Hands the page's bytes over: the page keeps no reference to them. Why it matters: the
 * promises of a page's way (the page stream's answer, listPage's own, an endpoint's) were made
 * when the request started, and a request that outlives two scavenges has them promoted to the
 * old generation by the time they resolve. A dead old object is freed only by a major GC, and
 * until then whatever it references stays too: each page's 17-35 KB message buffer, 15-25 MB
 * of them on the walk, which made V8 start a major GC every half second (BENCHMARKS.md, issue
 * 25, sixth pass). Taken out of every object a promise resolved with, the bytes die young.
 */
export function takeData(page: PageJson): Buffer {
  const data = page.data;
  page.data = TAKEN;
  return data;
}

/**
 * The records' bytes as a Buffer over the same memory: the decoded message's bytes field is a
 * view into the message gRPC assembled (ts-proto without env=node; proto/buf.gen.yaml), and a
 * copy would cost a 17 KB allocation and memcpy a page for nothing.
 */
export function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The page's JSON as text (MCP's text content), from its head and tail and its bytes (takeData). */
export function pageText(page: PageJson, data: Buffer): string {
  return `${page.head}${data.toString('utf8')}${page.tail}`;
}

/**
 * The page's JSON as a JSON string literal, in UTF-8: MCP's text content escaped into the
 * JSON-RPC answer, byte for byte `Buffer.from(JSON.stringify(pageText(page, data)))`.
 * It works on the bytes as Latin-1, one character per byte: JSON.stringify escapes only `"`,
 * `\`, control characters and lone surrogates, all ASCII or absent from a one-byte string, and
 * leaves every byte of a UTF-8 sequence (0x80 and up) as it is, so writing the result back as
 * Latin-1 gives the same bytes without decoding the page to UTF-16 and encoding it again: 24
 * against 55-60 µs for a walk page with one accented character (listPage.test.ts checks the
 * equality over every kind of character).
 */
export function pageTextLiteral(page: PageJson, data: Buffer): Buffer {
  const text = `${latin1Of(page.head)}${data.toString('latin1')}${latin1Of(page.tail)}`;
  return Buffer.from(JSON.stringify(text), 'latin1');
}

/**
 * A string's UTF-8 bytes as Latin-1 text (the head's and tail's share of pageTextLiteral): the
 * string itself when it is ASCII, as the resource names and cursors are.
 */
function latin1Of(s: string): string {
  return Buffer.byteLength(s, 'utf8') === s.length ? s : Buffer.from(s, 'utf8').toString('latin1');
}
