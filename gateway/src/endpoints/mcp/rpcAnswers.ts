import type { ServerResponse } from 'node:http';
import { httpStatusOf, type AppError } from '@brand/shared/errors';
import { rateLimitedError } from '../../auth/accessGate';
import { setErrorHeaders, type ErrorSender } from '../../http/errorResponse';
import { sendJson } from '../../http/jsonResponse';
import { requestIdOf } from '../../http/requestScope';
import type { RateLimitDecision } from '../../ratelimit/limiter';
import { jsonRpcError, SERVER_ERROR, type JsonRpcId } from './jsonRpc';
import { errorResult } from './toolResult';

/** The path of the assistant endpoint, whose every answer is JSON-RPC. */
export const MCP_PATH = '/api/mcp';

/** Sends a JSON-RPC error as the whole HTTP answer. */
export function sendRpcError(
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

/** The endpoint's error format for errors thrown on its path (errorHandler.ts). */
export const sendMcpError: ErrorSender = (res, err) => sendRpcAppError(res, err);

/**
 * A lone tools/call that the brand's spent budget refuses, answered in-band (docs/contract.md#assistant-tools rule
 * 2): HTTP 200 with the Retry-After the client must honour, and the refusal as the tool's
 * isError result, on the lean path, whichever way the call came.
 */
export function answerSpentBudgetInBand(
  res: ServerResponse,
  id: JsonRpcId,
  decision: RateLimitDecision,
): void {
  const limited = rateLimitedError(decision);
  setErrorHeaders(res, limited);
  const result = errorResult(limited, requestIdOf(res));
  sendJson(res, 200, JSON.stringify({ jsonrpc: '2.0', id, result }));
}
