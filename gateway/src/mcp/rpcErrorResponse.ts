import type { Response } from 'express';
import { httpStatusOf, type AppError } from '@brand/shared/errors';
import { setErrorHeaders } from '../http/errorResponse';
import { requestIdOf } from '../http/requestId';
import { jsonRpcError, SERVER_ERROR, type JsonRpcId } from './jsonRpc';

/** The path of the assistant endpoint, whose every answer is JSON-RPC. */
export const MCP_PATH = '/api/mcp';

/** Sends a JSON-RPC error as the whole HTTP answer. */
export function sendRpcError(
  res: Response,
  status: number,
  body: ReturnType<typeof jsonRpcError>,
): void {
  res.status(status).json(body);
}

/**
 * An AppError refused before the protocol (authentication, origin, rate limit, a malformed
 * request): the HTTP status of the error table, and a JSON-RPC error body whose
 * error.data.code is the REST code, so MCP clients read the same vocabulary.
 */
export function sendRpcAppError(res: Response, err: AppError, id: JsonRpcId | null = null): void {
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
