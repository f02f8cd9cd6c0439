import { DEFAULT_LIMIT, MAX_LIMIT, toolNameOf, type ResourceName } from '@brand/shared/resources';
import { ListArguments, parseListParams } from '../../../records/listParams';
import { listPage, pageText, takeData } from '../../../records/listPage';
import type { Page } from '../../../records/recordSchemas';
import { PAGE_SCHEMAS } from '../../../records/recordSchemas';
import { structuredTextResult } from '../toolResult';
import { jsonSchema, type ToolDefinition } from '../toolDefinition';

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
    'since (RFC 3339, e.g. 2026-11-01T00:00:00Z) returns only records created after that time; it skips rows sharing ' +
    "the timestamp of a page's last row, so page with cursor, not since. " +
    'Read-only: it cannot change anything.'
  );
}

/**
 * list_campaigns ... list_links (docs/contract.md#assistant-endpoint): one page of a resource, exactly as REST's
 * GET /api/v1/{resource} returns it, sharing its brand access and rate limit.
 */
export function listRecordsTool(resource: ResourceName): ToolDefinition {
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
      // parsed once for structuredContent; the text content reuses the page's JSON text
      const text = pageText(page, takeData(page));
      return structuredTextResult(JSON.parse(text) as Page, text);
    },
  };
}
