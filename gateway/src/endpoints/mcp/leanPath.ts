import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { AppError, isAppError, quoteInput } from '@brand/shared/errors';
import { isUtf8Body, NOT_UTF8_MESSAGE } from '@brand/shared/httpServer';
import type { Logger } from '@brand/shared/logger';
import type { AccessGate } from '../../auth/accessGate';
import type { ApiIdentity } from '../../auth/identity';
import type { PlansApi } from '../../clients/plansClient';
import type { RecordsApi } from '../../clients/recordsClient';
import { sendJson } from '../../http/jsonResponse';
import {
  declaresTooLargeBody,
  jsonBodyProblem,
  JSON_BODY_REFUSALS,
  readBodyWith,
  type BodyParser,
} from '../../http/requestBody';
import type { RequestScope } from '../../http/requestScope';
import type { LeanPath } from '../endpoint';
import { answerPreflight, grantOrigin, isPreflight } from './cors';
import { answerDirectListCall, directListCall } from './directListCall';
import { EnvelopeError, readEnvelope, type Envelope } from './envelope';
import { exchange } from './exchange';
import { jsonRpcError, type JsonRpcId } from './jsonRpc';
import { answerLooseArguments } from './looseArguments';
import { createMcpServer } from './mcpServer';
import { originPolicy } from './originPolicy';
import {
  MCP_PATH,
  isMcpTarget,
  sendRateLimited,
  sendRpcAppError,
  sendRpcTransportError,
} from './rpcAnswers';
import { toolContext } from './toolDefinition';
import {
  DEFAULT_VERSION,
  isSupportedVersion,
  SUPPORTED_VERSIONS,
  type ProtocolVersion,
} from './versions';

export interface McpDeps {
  gate: AccessGate;
  records: RecordsApi;
  plans: PlansApi;
  log: Logger;
  allowedOrigins: readonly string[];
  maxBodyBytes: number;
  /** How long the whole exchange may take (a little over the gRPC deadline). */
  timeoutMs: number;
}

/**
 * Reads the body only after authentication, so anonymous callers cannot make us parse, with
 * body-parser's raw reader (as express.raw): the size limit, Content-Encoding and aborted
 * uploads are handled as before; then the bytes as JSON.
 */
const rawBody = (maxBytes: number): BodyParser =>
  express.raw({ type: () => true, limit: maxBytes });

/** The refusal of a body over the limit, read or only declared. */
const tooLarge = (maxBytes: number): { status: number; message: string } => ({
  status: 413,
  message: `Request body exceeds ${maxBytes} bytes.`,
});

/**
 * Why body-parser could not read a body, as REST answers the same (errorHandler.ts): too large
 * 413, a Content-Encoding or charset it does not decode 415 (zstd was 400 here, 415 over
 * REST), bytes that are not in their Content-Encoding 400 (zlib's error has a numeric errno).
 */
function unreadableBody(err: unknown, maxBytes: number): { status: number; message: string } {
  const { type, errno } = (err ?? {}) as { type?: unknown; errno?: unknown };
  if (type === 'entity.too.large') return tooLarge(maxBytes);
  if (type === 'encoding.unsupported' || type === 'charset.unsupported')
    return {
      status: 415,
      message: 'The request body must be UTF-8 JSON, uncompressed or gzip, deflate or br.',
    };
  if (type === undefined && typeof errno === 'number')
    return {
      status: 400,
      message: 'The request body could not be decoded as its Content-Encoding says.',
    };
  return { status: 400, message: 'The request body could not be read.' };
}

async function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
): Promise<unknown> {
  let bytes: unknown;
  try {
    bytes = await readBodyWith(rawBody(maxBytes), req, res, maxBytes);
  } catch (err) {
    const { status, message } = unreadableBody(err, maxBytes);
    throw new EnvelopeError(jsonRpcError(null, ErrorCode.InvalidRequest, message), status);
  }
  const body = (bytes as Buffer | undefined) ?? Buffer.alloc(0);
  if (!isUtf8Body(body))
    throw new EnvelopeError(
      jsonRpcError(null, ErrorCode.ParseError, `Parse error: ${NOT_UTF8_MESSAGE}`),
    );
  try {
    return JSON.parse(withoutByteOrderMark(body).toString('utf8'));
  } catch {
    throw new EnvelopeError(
      jsonRpcError(null, ErrorCode.ParseError, 'Parse error: the body is not valid JSON.'),
    );
  }
}

/**
 * The body without a leading UTF-8 byte order mark, which RFC 8259 lets a parser ignore and the
 * REST plan endpoint's reader (body-parser) skips: with it, the same JSON was -32700 here.
 */
function withoutByteOrderMark(body: Buffer): Buffer {
  return body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.subarray(3) : body;
}

/** The version the client speaks: the header, or 2025-03-26 without one. An unsupported header is 400. */
function protocolVersionOf(req: IncomingMessage): ProtocolVersion {
  const raw = req.headers['mcp-protocol-version'];
  const header = Array.isArray(raw) ? raw.join(', ') : raw;
  if (header === undefined) return DEFAULT_VERSION;
  // Node joins a header sent twice with ", "; no version holds a comma
  if (header.includes(',')) {
    throw new EnvelopeError(
      jsonRpcError(
        null,
        ErrorCode.InvalidRequest,
        `MCP-Protocol-Version was given more than once (${quoteInput(header)}); send it once.`,
      ),
    );
  }
  if (!isSupportedVersion(header)) {
    throw new EnvelopeError(
      jsonRpcError(
        null,
        ErrorCode.InvalidRequest,
        `Unsupported MCP-Protocol-Version ${quoteInput(header)}; supported: ${SUPPORTED_VERSIONS.join(', ')}.`,
      ),
    );
  }
  return header;
}

/** Budget units a POST costs: one per message (a notification-only POST still costs one). */
function costOf(envelope: Envelope): number {
  return Math.max(1, envelope.messages.length + envelope.rejected.length);
}

/**
 * POST /api/mcp, the assistant connection (docs/contract.md#assistant-endpoint), stateless Streamable HTTP answered
 * with JSON only, on plain node:http: the one implementation of every request to the path,
 * a list tool call and every other message alike. In order: CORS for an allowed Origin (its
 * preflight 204, the grant on every answer), the method (405 but for POST: there is no stream
 * or session to open or close), Origin allow-list (403, a refused preflight too), authentication
 * (401, before the body is read), Content-Type (415), body size and JSON (413, -32700),
 * MCP-Protocol-Version (400), JSON-RPC shape and batch rules (-32600), the brand budget shared
 * with REST (one unit per message), then the answer: a lone list tools/call directly
 * (directListCall.ts: the page's bytes, never parsed), anything else by the SDK's server.
 */
export function mcpPath(deps: McpDeps): LeanPath {
  const originAllowed = originPolicy(deps.allowedOrigins);
  return (req, res, scope) => {
    if (!isMcpTarget(req.url ?? '')) return undefined;
    scope.route = MCP_PATH;
    return answerMcp(deps, originAllowed, req, res, scope);
  };
}

async function answerMcp(
  deps: McpDeps,
  originAllowed: (origin: string) => boolean,
  req: IncomingMessage,
  res: ServerResponse,
  scope: RequestScope,
): Promise<void> {
  // CORS (cors.ts) for an allowed origin only: its preflight is answered here, and every
  // answer below, errors included, carries the grant so the page may read it.
  const origin = req.headers.origin;
  const allowedOrigin = origin !== undefined && originAllowed(origin) ? origin : undefined;
  if (allowedOrigin !== undefined) {
    if (isPreflight(req)) return answerPreflight(res, allowedOrigin);
    grantOrigin(res, allowedOrigin);
  }
  // A refused origin's preflight gets the 403 its POST would (below), with no grant; any other
  // method but POST is 405.
  const refusedPreflight = origin !== undefined && isPreflight(req);
  if (req.method !== 'POST' && !refusedPreflight) {
    res.setHeader('Allow', 'POST');
    return sendRpcAppError(
      res,
      new AppError(
        'method_not_allowed',
        `${req.method} is not supported: this endpoint is stateless, with no stream or session; use POST.`,
      ),
    );
  }
  if (origin !== undefined && allowedOrigin === undefined) {
    return sendRpcAppError(
      res,
      new AppError(
        'forbidden_origin',
        `Origin ${quoteInput(origin)} may not call this endpoint; API keys belong on servers.`,
      ),
    );
  }

  let identity: ApiIdentity;
  try {
    identity = await deps.gate.identify(req, res);
  } catch (err) {
    if (isAppError(err)) return sendRpcAppError(res, err);
    throw err;
  }

  let envelope: Envelope;
  try {
    const problem = jsonBodyProblem(req);
    if (problem !== undefined) {
      throw new EnvelopeError(
        jsonRpcError(null, ErrorCode.InvalidRequest, JSON_BODY_REFUSALS[problem]),
        problem === 'missing' ? 400 : 415,
      );
    }
    if (declaresTooLargeBody(req, deps.maxBodyBytes)) {
      const { status, message } = tooLarge(deps.maxBodyBytes);
      throw new EnvelopeError(jsonRpcError(null, ErrorCode.InvalidRequest, message), status);
    }
    const body = await readBody(req, res, deps.maxBodyBytes);
    envelope = readEnvelope(body, protocolVersionOf(req));
    const limit = deps.gate.limitOf(identity);
    if (costOf(envelope) > limit) {
      throw new EnvelopeError(
        jsonRpcError(
          null,
          ErrorCode.InvalidRequest,
          `Invalid Request: this batch carries ${costOf(envelope)} messages, more than the brand's ${limit} requests a minute; split it.`,
        ),
      );
    }
  } catch (err) {
    if (!(err instanceof EnvelopeError)) throw err;
    const decision = await deps.gate.charge(res, identity, 1);
    if (!decision.allowed) return sendRateLimited(res, decision);
    return sendRpcTransportError(res, err.status, err.response);
  }

  // Usage counts each message as one request, as the budget charges it; a refused envelope
  // (above) is charged and counted as the one request it is.
  scope.units = costOf(envelope);
  const decision = await deps.gate.charge(res, identity, costOf(envelope));
  // Every method alike, tools/call included: 429 (docs/contract.md#errors).
  if (!decision.allowed)
    return sendRateLimited(res, decision, envelope.batch ? null : idOfOnly(envelope));

  const ctx = toolContext(deps, identity, scope.requestId);
  ctx.onToolError = (code) => (scope.toolErrors ??= []).push(code);
  const direct = directListCall(envelope);
  if (direct !== undefined) return answerDirectListCall(res, direct, ctx, deps.log);
  const server = createMcpServer(ctx, deps.log);
  const answers = await exchange(server, envelope.messages, deps.timeoutMs, (m) =>
    answerLooseArguments(m, ctx, deps.log),
  );
  const replies: unknown[] = [...envelope.rejected, ...answers];
  if (replies.length === 0) {
    res.statusCode = 202;
    res.end();
    return;
  }
  sendJson(res, 200, JSON.stringify(envelope.batch ? replies : replies[0]));
}

function idOfOnly(envelope: Envelope): JsonRpcId | null {
  const only = envelope.messages[0];
  return only && 'id' in only ? (only.id as JsonRpcId) : null;
}
