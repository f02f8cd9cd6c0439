import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { z } from 'zod';
import type { Logger } from '@brand/shared/logger';
import type { ToolContext } from './toolDefinition';
import { toolsFor } from './tools';
import { callTool, type CallToolParams } from './toolCall';
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

/**
 * A -32602 answer. Not McpError: its message repeats the code ("MCP error -32602: ..."), which
 * the JSON-RPC error already carries; the SDK answers any thrown error with its numeric `code`.
 */
function invalidParams(method: string, detail: string): Error {
  return Object.assign(new Error(`Invalid params for ${method}: ${detail}`), {
    code: ErrorCode.InvalidParams,
  });
}

/**
 * Each field that failed and why, from zod's issues ("capabilities: expected object, received
 * array"), so a client is told which field to fix: one fixed sentence once blamed
 * protocolVersion for any failure, a present one included.
 */
function issuesOf(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : 'params';
      const why = issue.message.replace(/^Invalid input: /, '').replace(/\brecord\b/, 'object');
      return `${field}: ${why}`;
    })
    .join('; ');
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
    if (!params.success) throw invalidParams('initialize', issuesOf(params.error));
    return {
      protocolVersion: negotiateVersion(params.data.protocolVersion),
      capabilities: CAPABILITIES,
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
    };
  });

  server.setRequestHandler(anyParams('tools/list'), (req) => {
    // One page, no nextCursor: any cursor is one this server never gave (MCP: -32602)
    if ((req.params as { cursor?: unknown } | undefined)?.cursor !== undefined)
      throw invalidParams('tools/list', 'cursor: the tools fit one page, which gives no cursor');
    return { tools: toolsFor(ctx.identity).map((t) => t.tool) };
  });

  server.setRequestHandler(anyParams('tools/call'), (req) =>
    callTool(req.params as CallToolParams, ctx, log),
  );

  return server;
}
