import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcClientResponse, jsonRpcError, JsonRpcRequest, type JsonRpcId } from './jsonRpc';
import { allowsBatches, type ProtocolVersion } from './versions';

/** Most messages a 2025-03-26 batch may carry. */
export const MAX_BATCH = 100;

type ErrorResponse = ReturnType<typeof jsonRpcError>;

/** A POST body sorted into what to run and what to answer at once. */
export interface Envelope {
  batch: boolean;
  /** Valid requests and notifications, for the MCP server. */
  messages: JSONRPCMessage[];
  /** -32600 answers for invalid members of a batch (JSON-RPC answers them individually). */
  rejected: ErrorResponse[];
}

/** A body refused as a whole: this HTTP status (400 unless said otherwise) with this JSON-RPC error. */
export class EnvelopeError extends Error {
  constructor(
    readonly response: ErrorResponse,
    readonly status = 400,
  ) {
    super(response.error.message);
  }
}

const idOf = (value: unknown): JsonRpcId | null => {
  const id = (value as { id?: unknown } | null)?.id;
  // An integer past 2^53 was rounded by JSON.parse: answered as it reads, it is another id than
  // the one sent, so it is none (JSON-RPC: null when the id could not be read).
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : null;
};

const invalid = (value: unknown, message: string): ErrorResponse =>
  jsonRpcError(idOf(value), ErrorCode.InvalidRequest, `Invalid Request: ${message}`);

/** One member: a request/notification to run, a client response to ignore, or an invalid one. */
function classify(value: unknown): { message?: JSONRPCMessage; rejected?: ErrorResponse } {
  const request = JsonRpcRequest.safeParse(value);
  if (request.success) return { message: request.data as JSONRPCMessage };
  if (JsonRpcClientResponse.safeParse(value).success) return {};
  return {
    rejected: invalid(
      value,
      'expected {"jsonrpc": "2.0", "method": string, "id"?: string|number, "params"?: object}',
    ),
  };
}

/**
 * Validates a parsed body against JSON-RPC 2.0 and the negotiated MCP version. A single
 * invalid message, an empty or oversized batch, a batch under a version without batches,
 * an initialize inside a batch and duplicate ids are refused as a whole (EnvelopeError).
 */
export function readEnvelope(body: unknown, version: ProtocolVersion): Envelope {
  if (!Array.isArray(body)) {
    const { message, rejected } = classify(body);
    if (rejected) throw new EnvelopeError(rejected);
    return { batch: false, messages: message ? [message] : [], rejected: [] };
  }
  if (!allowsBatches(version)) {
    throw new EnvelopeError(
      invalid(
        null,
        `JSON-RPC batches are not supported in protocol version ${version}; send one message per request.`,
      ),
    );
  }
  if (body.length === 0) throw new EnvelopeError(invalid(null, 'the batch is empty.'));
  if (body.length > MAX_BATCH)
    throw new EnvelopeError(invalid(null, `a batch holds at most ${MAX_BATCH} messages.`));
  const entries = body.map(classify);
  const messages = entries.flatMap((e) => (e.message ? [e.message] : []));
  if (messages.some((m) => 'method' in m && m.method === 'initialize')) {
    throw new EnvelopeError(invalid(null, 'initialize must not be part of a batch.'));
  }
  const ids = messages.flatMap((m) => ('id' in m ? [m.id] : []));
  if (new Set(ids).size !== ids.length)
    throw new EnvelopeError(invalid(null, 'request ids in a batch must be unique.'));
  return {
    batch: true,
    messages,
    rejected: entries.flatMap((e) => (e.rejected ? [e.rejected] : [])),
  };
}
