import type { ServerResponse } from 'node:http';
import { AppError, httpStatusOf, type ErrorCode } from '@brand/shared/errors';
import type { RefusalBody } from '@brand/shared/httpServer';
import { rateLimitedError } from '../../auth/accessGate';
import { setErrorHeaders, type ErrorSender } from '../../http/errorResponse';
import { sendJson } from '../../http/jsonResponse';
import { requestIdOf } from '../../http/requestScope';
import type { RateLimitDecision } from '../../ratelimit/limiter';
import { jsonRpcError, SERVER_ERROR, type JsonRpcId } from './jsonRpc';

/** The path of the assistant endpoint, whose every answer is JSON-RPC. */
export const MCP_PATH = '/api/mcp';

/** `/api/mcp` as express's router matches it: any case, an optional trailing slash. */
const MCP_PATH_PATTERN = /^\/api\/mcp\/?$/i;

/** Whether a request target (path, query, fragment) is the endpoint's. */
export function isMcpTarget(target: string): boolean {
  const end = target.search(/[?#]/);
  return MCP_PATH_PATTERN.test(end === -1 ? target : target.slice(0, end));
}

/**
 * A refusal of the HTTP layer (a body past its deadline, an unknown Expect, no Host) on the
 * endpoint's path: a JSON-RPC error like every other answer there, with the REST code and the
 * request id in error.data (createPublicHttpServer's refusalBody; any other path: undefined,
 * the contract's JSON error).
 */
export const mcpRefusalBody: RefusalBody = (target, refusal) => {
  if (!isMcpTarget(target)) return undefined;
  return JSON.stringify(
    jsonRpcError(null, SERVER_ERROR, refusal.message, {
      code: refusal.code,
      request_id: refusal.requestId,
    }),
  );
};

/** Sends a JSON-RPC error as the whole HTTP answer. */
function sendRpcError(
  res: ServerResponse,
  status: number,
  body: ReturnType<typeof jsonRpcError>,
): void {
  sendJson(res, status, JSON.stringify(body));
}

/**
 * An AppError refused before the protocol (authentication, origin, rate limit, a malformed
 * request): the HTTP status of the error table, and a JSON-RPC error body whose
 * error.data.code is the REST code, so MCP clients read the same vocabulary.
 */
export function sendRpcAppError(
  res: ServerResponse,
  err: AppError,
  id: JsonRpcId | null = null,
): void {
  setErrorHeaders(res, err);
  sendRpcError(
    res,
    httpStatusOf(err.code),
    jsonRpcError(id, SERVER_ERROR, err.message, {
      code: err.code,
      request_id: requestIdOf(res),
      ...(err.retryAfterSeconds !== undefined ? { retry_after: err.retryAfterSeconds } : {}),
    }),
  );
}

/**
 * A refusal before the JSON-RPC exchange (the body's size, media type or encoding, its JSON,
 * the MCP-Protocol-Version, the envelope's shape): the JSON-RPC error as the protocol names it
 * (-32700, -32600), with error.data carrying the code REST answers the same condition with
 * and the request id, as every other refusal of the endpoint does (they once carried neither).
 */
export function sendRpcTransportError(
  res: ServerResponse,
  status: number,
  body: ReturnType<typeof jsonRpcError>,
): void {
  const code: ErrorCode =
    status === 413
      ? 'payload_too_large'
      : status === 415
        ? 'unsupported_media_type'
        : 'malformed_request';
  setErrorHeaders(res, new AppError(code, body.error.message));
  sendRpcError(res, status, {
    ...body,
    error: { ...body.error, data: { code, request_id: requestIdOf(res) } },
  });
}

/** The endpoint's error format for errors thrown on its path (errorHandler.ts). */
export const sendMcpError: ErrorSender = (res, err) => sendRpcAppError(res, err);

/**
 * The one answer to a message (or batch) the brand's spent budget refuses, whatever its
 * method, `tools/call` included: HTTP 429 with Retry-After (the RateLimit headers are already
 * set by the charge), and a JSON-RPC error whose data carries `rate_limited` and
 * `retry_after`. Not an isError tool result: a rate limit is neither a validation nor a
 * business refusal (docs/contract.md#errors), and a client that backs off on 429 must see one.
 * `id` is the lone request's id; null for a batch or a refusal before the envelope was read.
 */
export function sendRateLimited(
  res: ServerResponse,
  decision: RateLimitDecision,
  id: JsonRpcId | null = null,
): void {
  sendRpcAppError(res, rateLimitedError(decision), id);
}
