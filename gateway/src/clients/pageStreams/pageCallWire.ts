import {
  Resource,
  StreamRecordsPagesRequest,
  type ListRecordsPageRequest,
  type PageCall,
} from '@brand/proto/records/v1';

/**
 * The wire form of the gateway's StreamRecordsPages messages, byte for byte what ts-proto's
 * encoder gives (pageCallWire.test.ts compares them), written into one buffer of the exact
 * size. The generic encoder grows a 128-byte writer by doubling, splices each nested message's
 * length in by shifting what follows it, slices a copy and copies it again into a Buffer: 4-6 us
 * a page call here against about 1. A call whose numbers the generated code would write in
 * another form (negative, fractional, beyond uint32) and every cancel take the generated encoder.
 */
export function serializeStreamRecordsPagesRequest(value: StreamRecordsPagesRequest): Buffer {
  const kind = value.kind;
  if (kind?.$case === 'call' && plainCall(kind.value)) return pageCallBytes(kind.value);
  return Buffer.from(StreamRecordsPagesRequest.encode(value).finish());
}

const UINT32_MAX = 0xffff_ffff;
const INT32_MAX = 0x7fff_ffff;

const isUint = (n: number, max: number): boolean => Number.isSafeInteger(n) && n >= 0 && n <= max;

function plainCall(call: PageCall): boolean {
  const page = call.page;
  return (
    isUint(call.call_id, Number.MAX_SAFE_INTEGER) &&
    isUint(call.timeout_ms, UINT32_MAX) &&
    (page === undefined ||
      (isUint(page.resource, INT32_MAX) &&
        (page.limit === undefined || isUint(page.limit, INT32_MAX))))
  );
}

function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

function writeVarint(buf: Buffer, pos: number, n: number): number {
  while (n >= 128) {
    buf[pos++] = (n % 128) | 128;
    n = Math.floor(n / 128);
  }
  buf[pos++] = n;
  return pos;
}

/** A length-delimited field's size: tag, length, bytes. */
const fieldSize = (bytes: number): number => 1 + varintSize(bytes) + bytes;

/** The field writes of one message, in field order, with each string's UTF-8 length. */
interface Sizes {
  requestId: number;
  traceparent: number;
  tracestate: number;
  brandId: number;
  cursor: number;
  since: number;
  id: number;
}

function pageSize(page: ListRecordsPageRequest, s: Sizes): number {
  let size = 0;
  if (page.brand_id !== '') size += fieldSize(s.brandId);
  if (page.resource !== Resource.RESOURCE_UNSPECIFIED) size += 1 + varintSize(page.resource);
  if (page.limit !== undefined) size += 1 + varintSize(page.limit);
  if (page.cursor !== undefined) size += fieldSize(s.cursor);
  if (page.since !== undefined) size += fieldSize(s.since);
  if (page.with_change_version !== false) size += 2;
  if (page.id !== undefined) size += fieldSize(s.id);
  return size;
}

function writeString(buf: Buffer, pos: number, tag: number, text: string, bytes: number): number {
  buf[pos++] = tag;
  pos = writeVarint(buf, pos, bytes);
  return pos + buf.write(text, pos, bytes, 'utf8');
}

/**
 * StreamRecordsPagesRequest { call (1) = PageCall { call_id (1), request_id (2), timeout_ms (3),
 * traceparent (4), tracestate (5), page (6) = ListRecordsPageRequest { brand_id (1),
 * resource (2), limit (3), cursor (4), since (5), with_change_version (6), id (7) } } }, each
 * field written only when the generated encoder writes it.
 */
function pageCallBytes(call: PageCall): Buffer {
  const page = call.page;
  const len = (text: string | undefined): number =>
    text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
  const s: Sizes = {
    requestId: len(call.request_id),
    traceparent: len(call.traceparent),
    tracestate: len(call.tracestate),
    brandId: len(page?.brand_id),
    cursor: len(page?.cursor),
    since: len(page?.since),
    id: len(page?.id),
  };
  const pageBytes = page === undefined ? 0 : pageSize(page, s);
  let callBytes = 0;
  if (call.call_id !== 0) callBytes += 1 + varintSize(call.call_id);
  if (call.request_id !== '') callBytes += fieldSize(s.requestId);
  if (call.timeout_ms !== 0) callBytes += 1 + varintSize(call.timeout_ms);
  if (call.traceparent !== '') callBytes += fieldSize(s.traceparent);
  if (call.tracestate !== '') callBytes += fieldSize(s.tracestate);
  if (page !== undefined) callBytes += fieldSize(pageBytes);
  const buf = Buffer.allocUnsafe(fieldSize(callBytes));

  let pos = 0;
  buf[pos++] = 10; // StreamRecordsPagesRequest.call
  pos = writeVarint(buf, pos, callBytes);
  if (call.call_id !== 0) {
    buf[pos++] = 8;
    pos = writeVarint(buf, pos, call.call_id);
  }
  if (call.request_id !== '') pos = writeString(buf, pos, 18, call.request_id, s.requestId);
  if (call.timeout_ms !== 0) {
    buf[pos++] = 24;
    pos = writeVarint(buf, pos, call.timeout_ms);
  }
  if (call.traceparent !== '') pos = writeString(buf, pos, 34, call.traceparent, s.traceparent);
  if (call.tracestate !== '') pos = writeString(buf, pos, 42, call.tracestate, s.tracestate);
  if (page !== undefined) {
    buf[pos++] = 50; // PageCall.page
    pos = writeVarint(buf, pos, pageBytes);
    if (page.brand_id !== '') pos = writeString(buf, pos, 10, page.brand_id, s.brandId);
    if (page.resource !== Resource.RESOURCE_UNSPECIFIED) {
      buf[pos++] = 16;
      pos = writeVarint(buf, pos, page.resource);
    }
    if (page.limit !== undefined) {
      buf[pos++] = 24;
      pos = writeVarint(buf, pos, page.limit);
    }
    if (page.cursor !== undefined) pos = writeString(buf, pos, 34, page.cursor, s.cursor);
    if (page.since !== undefined) pos = writeString(buf, pos, 42, page.since, s.since);
    if (page.with_change_version !== false) {
      buf[pos++] = 48;
      buf[pos++] = 1;
    }
    if (page.id !== undefined) pos = writeString(buf, pos, 58, page.id, s.id);
  }
  return buf;
}
