import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppError } from '@brand/shared/errors';
import { errorBody } from '../../http/errorResponse';

/**
 * A successful tool result: the page as structuredContent and, for clients that only
 * read text, the same JSON as text content.
 */
export function structuredResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * The same, when the value's JSON text is already at hand (a page from the records
 * service): `text` must be JSON.stringify(value) or equivalent JSON; it is not re-encoded.
 */
export function structuredTextResult(value: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: value };
}

/**
 * A refusal as a tool result (HTTP 200, isError), per docs/contract.md#assistant-tools rule 2: the text is the
 * REST error body, so an assistant reads the same code and message an HTTP client would.
 */
export function errorResult(err: AppError, requestId: string): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(errorBody(err, requestId)) }],
    isError: true,
  };
}
