import { z } from 'zod';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AccessGate } from '../../auth/accessGate';
import type { Identity } from '../../auth/identity';
import type { PlansApi } from '../../clients/plansClient';
import type { RecordsApi } from '../../clients/recordsClient';

/** What a tool needs to run for one request. */
export interface ToolContext {
  identity: Identity;
  records: RecordsApi;
  plans: PlansApi;
  requestId: string;
  /** Told when the key may not call a tool it asked for (the auth-failure counter). */
  onPermissionRefused?: () => void;
  /** Told of each tool call answered with isError (usage counts it by its code). */
  onToolError?: (code: string) => void;
}

/** The context of one admitted request, for the SDK server and the direct list call alike. */
export function toolContext(
  deps: { gate: AccessGate; records: RecordsApi; plans: PlansApi },
  identity: Identity,
  requestId: string,
): ToolContext {
  return {
    identity,
    records: deps.records,
    plans: deps.plans,
    requestId,
    onPermissionRefused: () => deps.gate.permissionRefused(),
  };
}

/** One tool: what tools/list shows, who may see it, and how it runs. */
export interface ToolDefinition {
  tool: Tool;
  /** Whether this key may see and call the tool. */
  visibleTo: (identity: Identity) => boolean;
  /** Runs the tool; refusals throw AppError and become isError results. */
  run: (args: unknown, ctx: ToolContext) => Promise<CallToolResult>;
}

/**
 * JSON Schema for MCP (draft 2020-12), from the zod schemas that also validate. A schema
 * with a meta id comes out as `{ $ref, $defs }`; MCP requires `type: "object"` at the
 * root (the SDK client rejects the whole tools/list otherwise), so the root definition is
 * inlined and the other definitions stay in $defs for the refs inside it.
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  const name = out.$ref?.startsWith('#/$defs/') ? out.$ref.slice('#/$defs/'.length) : undefined;
  const root = name === undefined ? undefined : out.$defs?.[name];
  if (name === undefined || typeof root !== 'object') return out as Tool['inputSchema'];
  const { $ref: _ref, $defs: defs, ...rest } = out;
  const { [name]: _root, ...others } = defs ?? {};
  return { ...rest, ...root, $defs: others } as Tool['inputSchema'];
}
