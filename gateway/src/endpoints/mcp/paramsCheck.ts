import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

const isPlainObject = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What is wrong with a message's params, for the cases the MCP SDK handles badly: it drops
 * a message its schema refuses (array params, a non-object _meta) without answering, and it
 * reports a malformed tools/call as a raw zod dump. Such requests are answered here with a
 * readable -32602 instead. Returns undefined when the SDK can take the message.
 */
export function paramsProblem(message: JSONRPCMessage): string | undefined {
  if (!isJSONRPCRequest(message) && !isJSONRPCNotification(message)) {
    return 'params must be an object, and params._meta an object when present.';
  }
  if (message.method !== 'tools/call') return undefined;
  const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
  if (typeof params?.name !== 'string' || params.name === '') {
    return 'tools/call needs "name", the tool name as a non-empty string (see tools/list).';
  }
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) {
    return '"arguments" must be a JSON object of the tool\'s parameters.';
  }
  return undefined;
}
