import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@brand/shared/logger';
import { callTool, type CallToolParams } from './toolCall';
import type { ToolContext } from './toolDefinition';

const isPlainObject = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A tools/call whose `arguments` is present but not an object (an array, a string, null),
 * answered here rather than by the SDK server: its tools/call wrapper checks the request
 * against its own schema and answers -32602 before any handler runs, where the contract wants
 * the tool's own refusal as an isError result (docs/contract.md#assistant-tools rule 2), the
 * code REST would give such input. callTool is the same answer the handler gives. Undefined
 * for every other message, which the SDK server takes.
 */
export function answerLooseArguments(
  message: JSONRPCMessage,
  ctx: ToolContext,
  log: Logger,
): Promise<JSONRPCMessage> | undefined {
  if (!isJSONRPCRequest(message) || message.method !== 'tools/call') return undefined;
  const params = message.params as unknown as CallToolParams;
  if (params.arguments === undefined || isPlainObject(params.arguments)) return undefined;
  return callTool(params, ctx, log).then((result) => ({
    jsonrpc: '2.0',
    id: message.id,
    result,
  }));
}
