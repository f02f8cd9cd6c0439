import {
  RecordsServiceService,
  StreamRecordsPagesResponse,
  type ListRecordsPageResponse,
} from '@brand/proto/records/v1';

/**
 * The wire form of StreamRecordsPages' answers, byte for byte what ts-proto's encoder gives
 * (pageAnswerWire.test.ts compares them), written into one buffer of the exact size.
 *
 * Why: a page answer is a 17-35 KB message, and the generic path copied its records about five
 * times on the way out: BinaryWriter starts at 128 bytes and doubles (zero-filled, copying what
 * it holds each time), each of the two nested messages' lengths is spliced in by shifting what
 * follows it, `finish()` slices a copy, and the generated serializer copies that into a Buffer;
 * gRPC then copies it once more behind its frame header. This writes the page's bytes once
 * (gRPC's copy stays). Anything but a page answer with plain non-negative integers takes the
 * generated encoder.
 */
export function serializeStreamRecordsPagesResponse(value: StreamRecordsPagesResponse): Buffer {
  const kind = value.kind;
  if (kind?.$case === 'answer' && kind.value.outcome?.$case === 'page') {
    const callId = kind.value.call_id;
    const page = kind.value.outcome.value;
    if (plainUint(callId) && plainFields(page)) return pageAnswerBytes(callId, page);
  }
  return Buffer.from(StreamRecordsPagesResponse.encode(value).finish());
}

/** RecordsServiceService with StreamRecordsPages' answers serialized as above. */
export const RECORDS_SERVICE = {
  ...RecordsServiceService,
  streamRecordsPages: {
    ...RecordsServiceService.streamRecordsPages,
    responseSerialize: serializeStreamRecordsPagesResponse,
  },
} as const;

/** A number the fast path encodes as the generated code would: a non-negative safe integer. */
function plainUint(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

function plainFields(page: ListRecordsPageResponse): boolean {
  return (
    plainUint(page.count) && (page.change_version === undefined || plainUint(page.change_version))
  );
}

/** Bytes of a varint of a non-negative safe integer. */
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

/**
 * StreamRecordsPagesResponse { answer (1) = PageAnswer { call_id (1), page (2) =
 * ListRecordsPageResponse { data_json (1), count (2), next_cursor (3), change_version (4) } } },
 * each field written only when the generated encoder writes it (proto3 defaults left out,
 * optional fields when set).
 */
function pageAnswerBytes(callId: number, page: ListRecordsPageResponse): Buffer {
  const data = page.data_json;
  const cursor = page.next_cursor;
  const cursorBytes = cursor === undefined ? 0 : Buffer.byteLength(cursor, 'utf8');
  let pageSize = 0;
  if (data.length !== 0) pageSize += 1 + varintSize(data.length) + data.length;
  if (page.count !== 0) pageSize += 1 + varintSize(page.count);
  if (cursor !== undefined) pageSize += 1 + varintSize(cursorBytes) + cursorBytes;
  if (page.change_version !== undefined) pageSize += 1 + varintSize(page.change_version);
  let answerSize = 1 + varintSize(pageSize) + pageSize;
  if (callId !== 0) answerSize += 1 + varintSize(callId);
  const buf = Buffer.allocUnsafe(1 + varintSize(answerSize) + answerSize);

  let pos = 0;
  buf[pos++] = 10; // StreamRecordsPagesResponse.answer
  pos = writeVarint(buf, pos, answerSize);
  if (callId !== 0) {
    buf[pos++] = 8; // PageAnswer.call_id
    pos = writeVarint(buf, pos, callId);
  }
  buf[pos++] = 18; // PageAnswer.page
  pos = writeVarint(buf, pos, pageSize);
  if (data.length !== 0) {
    buf[pos++] = 10; // data_json
    pos = writeVarint(buf, pos, data.length);
    buf.set(data, pos);
    pos += data.length;
  }
  if (page.count !== 0) {
    buf[pos++] = 16; // count
    pos = writeVarint(buf, pos, page.count);
  }
  if (cursor !== undefined) {
    buf[pos++] = 26; // next_cursor
    pos = writeVarint(buf, pos, cursorBytes);
    pos += buf.write(cursor, pos, cursorBytes, 'utf8');
  }
  if (page.change_version !== undefined) {
    buf[pos++] = 32; // change_version
    pos = writeVarint(buf, pos, page.change_version);
  }
  return buf;
}
