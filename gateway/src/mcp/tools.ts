import { z } from 'zod';
import type { Tool, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  RESOURCES,
  toolNameOf,
  type ResourceName,
} from '@brand/shared/resources';
import type { Identity } from '../auth/identity';
import type { RecordsApi } from '../clients/recordsClient';
import { ListArguments, parseListParams } from '../records/listParams';
import { listPage } from '../records/listPage';
import { PAGE_SCHEMAS } from '../records/recordSchemas';
import { PREPARE_CAMPAIGN_PLAN_TOOL, prepareCampaignPlan } from './prepareCampaignPlanTool';
import { structuredResult } from './toolResult';

/** What a tool needs to run for one request. */
export interface ToolContext {
  identity: Identity;
  records: RecordsApi;
  requestId: string;
}

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
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  const name = out.$ref?.startsWith('#/$defs/') ? out.$ref.slice('#/$defs/'.length) : undefined;
  const root = name === undefined ? undefined : out.$defs?.[name];
  if (name === undefined || typeof root !== 'object') return out as Tool['inputSchema'];
  const { $ref: _ref, $defs: defs, ...rest } = out;
  const { [name]: _root, ...others } = defs ?? {};
  return { ...rest, ...root, $defs: others } as Tool['inputSchema'];
}

const TITLES: Record<ResourceName, string> = {
  campaigns: 'List campaigns',
  submissions: 'List submissions',
  payouts: 'List payouts',
  deposits: 'List deposits',
  conversions: 'List conversions',
  links: 'List links',
};

function describeListTool(resource: ResourceName): string {
  return (
    `Lists this brand's ${resource}, newest first. Returns { resource, count, data, next_cursor? }. ` +
    `limit is 1-${MAX_LIMIT} (default ${DEFAULT_LIMIT}); prefer small pages (20-50) to keep results short. ` +
    'To read more, call again with cursor set to the next_cursor you received, and stop when a result has no next_cursor. ' +
    'since (RFC 3339, e.g. 2026-11-01T00:00:00Z) returns only records created after that time. ' +
    'Read-only: it cannot change anything.'
  );
}

function listTool(resource: ResourceName): ToolDefinition {
  return {
    tool: {
      name: toolNameOf(resource),
      title: TITLES[resource],
      description: describeListTool(resource),
      inputSchema: jsonSchema(ListArguments, 'input'),
      outputSchema: jsonSchema(PAGE_SCHEMAS[resource], 'output'),
      annotations: {
        title: TITLES[resource],
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    visibleTo: () => true,
    run: async (args, ctx) => {
      const params = parseListParams(ListArguments, args);
      const page = await listPage(ctx.records, ctx.identity, resource, params, ctx.requestId);
      return structuredResult(page);
    },
  };
}

/** Every tool, in the order tools/list shows them. */
export const TOOLS: readonly ToolDefinition[] = [
  ...RESOURCES.map(listTool),
  {
    tool: PREPARE_CAMPAIGN_PLAN_TOOL,
    visibleTo: (identity) => identity.permissions.has('campaigns:prepare'),
    run: prepareCampaignPlan,
  },
];

/** The tools a key may see. */
export function toolsFor(identity: Identity): ToolDefinition[] {
  return TOOLS.filter((t) => t.visibleTo(identity));
}

/** The tool of that name (visible to this key or not), or undefined for a name that is no tool. */
export function findTool(name: string): ToolDefinition | undefined {
  return TOOLS.find((t) => t.tool.name === name);
}
