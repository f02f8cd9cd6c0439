/**
 * A string's UTF-8 bytes, for the bytes fields that carry JSON a caller writes out as it
 * arrives (a records page's data_json, an events page's). ASCII text (the byte length equals
 * the length, which V8 answers without encoding) is copied as Latin-1, one byte per
 * character, the same bytes: 3 against 8 us for a walk page of 16 KB, where V8's UTF-8 writer
 * goes character by character.
 */
export function utf8Bytes(text: string): Buffer {
  return Buffer.byteLength(text, 'utf8') === text.length
    ? Buffer.from(text, 'latin1')
    : Buffer.from(text, 'utf8');
}
