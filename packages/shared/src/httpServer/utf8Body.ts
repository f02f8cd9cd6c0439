import { isUtf8 } from 'node:buffer';

/** The refusal of a body whose bytes are not UTF-8 (the same words on REST, MCP and SCIM). */
export const NOT_UTF8_MESSAGE = 'The request body is not valid UTF-8: JSON is sent as UTF-8.';

/**
 * Whether a body's bytes, as sent (after any Content-Encoding), are UTF-8. JSON is UTF-8 (RFC
 * 8259); a decoder that meets other bytes puts U+FFFD in their place, and the outside probe
 * (2026-11-30) saw a plan stored titled "caf\uFFFD" from a Latin-1 "caf\xE9". Such a body is
 * no JSON: 400 malformed_request on REST, -32700 on the assistant endpoint, a SCIM 400.
 */
export function isUtf8Body(bytes: Uint8Array): boolean {
  return isUtf8(bytes);
}

/**
 * body-parser's `verify` hook (it is handed the bytes before they are decoded): throws a 400
 * whose `type` is `entity.not.utf8` for a body that is not UTF-8, which each server's error
 * handler answers in its own format.
 */
export function refuseNonUtf8(_req: unknown, _res: unknown, bytes: Buffer): void {
  if (!isUtf8Body(bytes)) {
    throw Object.assign(new Error(NOT_UTF8_MESSAGE), { status: 400, type: NOT_UTF8_TYPE });
  }
}

/** The `type` of refuseNonUtf8's error, as body-parser's errors carry theirs. */
export const NOT_UTF8_TYPE = 'entity.not.utf8';
