import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError, isAppError, quoteInput } from '@brand/shared/errors';
import type { Logger } from '@brand/shared/logger';
import type { ToolContext } from './toolDefinition';
import { errorResult } from './toolResult';
import { findTool, toolNames } from './tools';

/**
 * tools/call params as paramsCheck has already vetted them: a non-empty name. `arguments` is
 * whatever was sent; the tool's own input rules refuse what is not an object of its parameters.
 */
export interface CallToolParams {
  name: string;
  arguments?: unknown;
}

/**
 * A name that is no tool, refused as a result with isError (docs/contract.md#assistant-tools
 * rule 2: a validation refusal), naming every tool; tools/list shows those this key may call.
 */
function unknownTool(name: string): AppError {
  const message = `Unknown tool ${quoteInput(name)}: the tools are ${toolNames().join(', ')} (tools/list shows those this key may call).`;
  return new AppError('invalid_parameter', message, { details: [{ field: 'name', message }] });
}

/**
 * One tools/call, answered as a tool result whatever happens: the tool's result, or its
 * refusal with isError (docs/contract.md#assistant-tools rule 2): a name that is no tool, a
 * tool this key may not call, arguments the tool's rules refuse (not an object among them), a
 * business refusal. The SDK server's tools/call handler (mcpServer.ts) and the calls the SDK
 * would refuse before any handler (looseArguments.ts) both answer through it.
 */
export async function callTool(
  params: CallToolParams,
  ctx: ToolContext,
  log: Logger,
): Promise<CallToolResult> {
  const definition = findTool(params.name);
  try {
    if (!definition) throw unknownTool(params.name);
    if (!definition.visibleTo(ctx.identity)) {
      ctx.onPermissionRefused?.();
      // The tool is public knowledge (docs/contract.md#assistant-endpoint); what this key lacks is the permission.
      throw new AppError(
        'insufficient_permission',
        `${quoteInput(params.name)} needs the campaigns:prepare permission; a brand owner can create a live key with it.`,
      );
    }
    // absent arguments are none; null, an array or a string reach the tool's rules and are refused
    return await definition.run(params.arguments === undefined ? {} : params.arguments, ctx);
  } catch (err) {
    return toolFailure(err, ctx.requestId, log, ctx.onToolError);
  }
}

/**
 * A tool's failure as its result (isError): an AppError as itself, anything else as a bare
 * internal_error; internal errors are logged with their cause. Shared by callTool and the
 * direct list call (directListCall.ts).
 */
export function toolFailure(
  err: unknown,
  requestId: string,
  log: Logger,
  onToolError?: (code: string) => void,
): CallToolResult {
  onToolError?.(isAppError(err) ? err.code : 'internal_error');
  if (isAppError(err)) {
    if (err.code === 'internal_error')
      log.error({ err: err.cause ?? err, request_id: requestId }, 'tool failed');
    return errorResult(err, requestId);
  }
  log.error({ err, request_id: requestId }, 'tool failed');
  return errorResult(new AppError('internal_error', 'An internal error occurred.'), requestId);
}
