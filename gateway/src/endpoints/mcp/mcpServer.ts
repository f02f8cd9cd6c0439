import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { z } from 'zod';
import { isAppError, AppError, quoteInput } from '@brand/shared/errors';
import type { Logger } from '@brand/shared/logger';
import type { ToolContext } from './toolDefinition';
import { errorResult } from './toolResult';
import { findTool, toolsFor } from './tools';
import { negotiateVersion } from './versions';

const SERVER_INFO = { name: 'brand-records', title: 'Brand Records', version: '1.0.0' };
const CAPABILITIES = { tools: { listChanged: false } };

/**
 * One schema validator for every per-request server: by default each Server builds its own
 * Ajv instance, which was most of an MCP call's setup cost (measured by npm run bench).
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

const INSTRUCTIONS =
  "Read-only access to one brand's records (campaigns, submissions, payouts, deposits, conversions, links). " +
  'Each list_* tool returns one page, newest first; follow next_cursor to read further and stop when it is absent. ' +
  'Refusals come back as results with isError and a JSON error code (for example invalid_parameter). ' +
  "Over the brand's rate limit a request is answered HTTP 429 (error.data.code rate_limited): wait error.data.retry_after seconds.";

/**
 * Method schemas are registered permissively and params are checked here, because the
 * SDK reports a params schema failure as -32603 (internal error) where JSON-RPC requires
 * -32602 (invalid params).
 */
const anyParams = (method: string) =>
  z.object({ method: z.literal(method), params: z.unknown().optional() });

const InitializeParams = z.object({
  protocolVersion: z.string(),
  capabilities: z.record(z.string(), z.unknown()).optional(),
  clientInfo: z.object({ name: z.string(), version: z.string() }).loose().optional(),
});

/** tools/call params as paramsCheck has already vetted them (a non-empty name, object arguments). */
interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
}

function invalidParams(method: string, detail: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid params for ${method}: ${detail}`);
}

/**
 * One MCP server for one HTTP request, bound to the caller's identity. The SDK's Server
 * runs the protocol (dispatch, ping, notifications, -32601 for unknown methods); this
 * module supplies initialize (our three versions), tools/list and tools/call.
 */
export function createMcpServer(ctx: ToolContext, log: Logger): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: CAPABILITIES,
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: SCHEMA_VALIDATOR,
  });

  server.setRequestHandler(anyParams('initialize'), (req) => {
    const params = InitializeParams.safeParse(req.params);
    if (!params.success) throw invalidParams('initialize', 'protocolVersion (string) is required');
    return {
      protocolVersion: negotiateVersion(params.data.protocolVersion),
      capabilities: CAPABILITIES,
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
    };
  });

  server.setRequestHandler(anyParams('tools/list'), () => ({
    tools: toolsFor(ctx.identity).map((t) => t.tool),
  }));

  server.setRequestHandler(anyParams('tools/call'), async (req) => {
    const params = req.params as CallToolParams;
    const definition = findTool(params.name);
    if (!definition) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${quoteInput(params.name)}`);
    }
    try {
      if (!definition.visibleTo(ctx.identity)) {
        ctx.onPermissionRefused?.();
        // The tool is public knowledge (docs/contract.md#assistant-endpoint); what this key lacks is the permission.
        throw new AppError(
          'insufficient_permission',
          `${quoteInput(params.name)} needs the campaigns:prepare permission; a brand owner can create a live key with it.`,
        );
      }
      return await definition.run(params.arguments ?? {}, ctx);
    } catch (err) {
      return toolFailure(err, ctx.requestId, log, ctx.onToolError);
    }
  });

  return server;
}

/**
 * A tool's failure as its result (isError): an AppError as itself, anything else as a bare
 * internal_error; internal errors are logged with their cause. Shared by the SDK server's
 * tools/call and the direct list call (directListCall.ts).
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
