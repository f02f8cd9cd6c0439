import { RESOURCES } from '@brand/shared/resources';
import type { Identity } from '../../auth/identity';
import type { ToolDefinition } from './toolDefinition';
import { listRecordsTool } from './tools/listRecords';
import { prepareCampaignPlanTool } from './tools/prepareCampaignPlan';

/** Every tool, in the order tools/list shows them. */
const TOOLS: readonly ToolDefinition[] = [
  ...RESOURCES.map(listRecordsTool),
  prepareCampaignPlanTool,
];

/** The tools a key may see. */
export function toolsFor(identity: Identity): ToolDefinition[] {
  return TOOLS.filter((t) => t.visibleTo(identity));
}

/** The tool of that name (visible to this key or not), or undefined for a name that is no tool. */
export function findTool(name: string): ToolDefinition | undefined {
  return TOOLS.find((t) => t.tool.name === name);
}

/** Every tool's name, in tools/list's order, whether this key may call it or not. */
export function toolNames(): string[] {
  return TOOLS.map((t) => t.tool.name);
}
