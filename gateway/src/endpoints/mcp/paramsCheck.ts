import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * What is wrong with a message's params, for the cases the MCP SDK handles badly: it drops
 * a message its schema refuses (array params, a non-object _meta) without answering, it
 * reports a malformed tools/call as a raw zod dump, and a request for a task as an internal
 * error. Such requests are answered here with a
 * readable -32602 instead. Returns undefined when the SDK can take the message.
 *
 * Only what makes a message no tool call at all is a protocol error: params that are not an
 * object, a tools/call without a tool name. A call that names a tool is a tool call, and what
 * is wrong with it (a name that is no tool, `arguments` that is not an object) is a validation
 * refusal, answered as an isError result (docs/contract.md#assistant-tools rule 2; mcpServer.ts).
 */
export function paramsProblem(message: JSONRPCMessage): string | undefined {
  if (!isJSONRPCRequest(message) && !isJSONRPCNotification(message)) {
    return 'params must be an object, and params._meta an object when present.';
  }
  // A task-augmented request (MCP 2025-11-25): the server declares no tasks, and the SDK would
  // answer one with -32603, an internal error, for what is the client's request.
  if (isJSONRPCRequest(message) && message.params !== undefined && 'task' in message.params) {
    return 'this server runs no tasks (it declares no tasks capability): send the request without params.task.';
  }
  if (message.method !== 'tools/call') return undefined;
  const params = message.params as { name?: unknown } | undefined;
  if (typeof params?.name !== 'string' || params.name === '') {
    return 'tools/call needs "name", the tool name as a non-empty string (see tools/list).';
  }
  return undefined;
}
