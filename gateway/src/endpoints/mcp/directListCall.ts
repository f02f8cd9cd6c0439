import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@brand/shared/logger';
import { isResourceName, type ResourceName } from '@brand/shared/resources';
import { sendJson, type JsonParts } from '../../http/jsonResponse';
import { listPage, pageTextLiteral, takeData } from '../../records/listPage';
import { ListArguments, parseListParams } from '../../records/listParams';
import type { Envelope } from './envelope';
import type { JsonRpcId } from './jsonRpc';
import { toolFailure } from './toolCall';
import { paramsProblem } from './paramsCheck';
import type { ToolContext } from './toolDefinition';

/** A lone `tools/call` of a list_* tool, as directListCall recognises it. */
export interface DirectListCall {
  id: JsonRpcId;
  resource: ResourceName;
  /** The arguments as sent ({} when absent); parseListParams refuses what is not an object. */
  args: unknown;
}

const PLAIN_PARAMS = new Set(['name', 'arguments']);

/**
 * The assistant's common request: one `tools/call` of list_campaigns ... list_links with
 * params `{name, arguments?}` only (no `_meta`, no `task`, not in a batch). For it the SDK
 * server only dispatches to the tool and validates the result's shape, yet building a
 * server, its in-memory transport and abort controller, zod-parsing request and result,
 * parsing the page for structuredContent and stringifying the 40 KB answer was most of an
 * MCP call's gateway CPU (BENCHMARKS.md). Anything else returns undefined and takes the
 * SDK path, which remains the one definition of the protocol.
 */
export function directListCall(envelope: Envelope): DirectListCall | undefined {
  if (envelope.batch || envelope.rejected.length > 0 || envelope.messages.length !== 1)
    return undefined;
  const message = envelope.messages[0] as JSONRPCMessage & {
    method?: unknown;
    id?: unknown;
    params?: { name?: unknown; arguments?: unknown };
  };
  if (message.method !== 'tools/call' || !('id' in message)) return undefined;
  if (paramsProblem(message) !== undefined) return undefined;
  const params = message.params!;
  if (Object.keys(params).some((k) => !PLAIN_PARAMS.has(k))) return undefined;
  const name = params.name as string;
  const resource = name.startsWith('list_') ? name.slice('list_'.length) : '';
  if (!isResourceName(resource)) return undefined;
  return {
    id: message.id as JsonRpcId,
    resource,
    args: params.arguments === undefined ? {} : params.arguments,
  };
}

/**
 * Answers a direct list call (HTTP 200) with the JSON-RPC response text, byte for byte what
 * the SDK path sends
 * (`{"result":{"content":[{"type":"text","text":..}],"structuredContent":..},"jsonrpc":"2.0","id":..}`):
 * the page's JSON from the records service goes in once as structuredContent and once,
 * escaped, as the text; nothing is parsed. A refusal is the same isError result the tool
 * gives through the SDK. Used by the lean path (leanPath.ts).
 * Written in parts: structuredContent is the records' bytes as they arrived and the escaped
 * text is encoded once, so the 35 KB answer is never joined, measured (UTF-8 length of a
 * joined string was 2.3 % of the gateway's CPU per call on the walk) or encoded again.
 */
export async function answerDirectListCall(
  res: ServerResponse,
  call: DirectListCall,
  ctx: ToolContext,
  log: Logger,
): Promise<void> {
  sendJson(res, 200, await directCallText(call, ctx, log));
}

async function directCallText(
  call: DirectListCall,
  ctx: ToolContext,
  log: Logger,
): Promise<string | JsonParts> {
  const id = JSON.stringify(call.id);
  try {
    const params = parseListParams(ListArguments, call.args);
    const page = await listPage(ctx.records, ctx.identity, call.resource, params, ctx.requestId);
    const data = takeData(page);
    const escaped = pageTextLiteral(page, data);
    return [
      `{"result":{"content":[{"type":"text","text":`,
      escaped,
      `}],"structuredContent":${page.head}`,
      data,
      `${page.tail}},"jsonrpc":"2.0","id":${id}}`,
    ];
  } catch (err) {
    return JSON.stringify({
      result: toolFailure(err, ctx.requestId, log, ctx.onToolError),
      jsonrpc: '2.0',
      id: call.id,
    });
  }
}
