import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import {
  formatMicros,
  makeBrandWithKey,
  makeRecords,
  startStack,
  type Stack,
} from '@brand/testkit';
import { ApiClient } from '../support/apiClient';

// `since` filters on a timestamp alone, so rows sharing the timestamp of a
// page's last row are skipped (docs/contract.md#reading-records rule 4); the cursor reads them.
// The warning is what tells an integrator to use the cursor, so it is checked where one reads
// it: the OpenAPI parameter, the contract, the API guide and the TypeScript client.

interface Page {
  count: number;
  data: Array<{ id: string; created_at: string }>;
  next_cursor?: string;
}

const ROOT = path.resolve(__dirname, '../../..');
const WARNING =
  /rows sharing the timestamp of (?:a page's last row|the last row of a page) are skipped/i;

let stack: Stack;
let api: ApiClient;
let key: string;
let rows: Array<{ id: string; created_at: string }>;

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' } });
  api = new ApiClient(stack.gateway.url);
  const b = await makeBrandWithKey(stack.admin, { tier: 'plus' });
  key = b.secret;
  // rows 10 and 11 (newest first) were created at the same instant, as one batch's rows are
  const shared = formatMicros(Date.now() * 1000 - 10_500_000);
  rows = await makeRecords(stack.db.pool, b.brand.id, 'campaigns', 12, (i) =>
    i >= 10 ? { created_at: shared } : {},
  );
});
afterAll(() => stack?.close());

describe('since skips the rows sharing the timestamp of a page last row (issue 47)', () => {
  it('since = row 10 timestamp returns rows 0-9: row 11, never read, is skipped', async () => {
    expect(rows[10]!.created_at).toBe(rows[11]!.created_at);
    const page = await api.get<Page>('/api/v1/campaigns?limit=11', { key });
    expect(page.body.data.map((r) => r.id)).toEqual(rows.slice(0, 11).map((r) => r.id));
    const last = page.body.data[10]!;

    const since = await api.get<Page>(
      `/api/v1/campaigns?limit=200&since=${encodeURIComponent(last.created_at)}`,
      { key },
    );
    expect(since.body.data.map((r) => r.id)).toEqual(rows.slice(0, 10).map((r) => r.id));
    expect(since.body.data.map((r) => r.id)).not.toContain(rows[11]!.id);

    // the cursor reads it
    const next = await api.get<Page>(
      `/api/v1/campaigns?limit=11&cursor=${encodeURIComponent(page.body.next_cursor!)}`,
      { key },
    );
    expect(next.body.data.map((r) => r.id)).toEqual([rows[11]!.id]);
  });

  it('the served OpenAPI document warns in the since parameter, and says to use the cursor', async () => {
    const res = await api.get('/openapi/service.yaml');
    const doc = parse(res.text) as {
      paths: Record<
        string,
        { get?: { parameters?: Array<{ name: string; description?: string }> } }
      >;
    };
    const param = doc.paths['/api/v1/{resource}']!.get!.parameters!.find((p) => p.name === 'since');
    expect(param?.description).toMatch(WARNING);
    expect(param?.description).toMatch(/cursor/);
  });

  it.each(['docs/contract.md', 'docs/api.md', 'sdk/typescript/src/records/recordsResource.ts'])(
    '%s states the warning',
    (file) => {
      const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/\s*\n\s*(?:\*\s*)?/g, ' ');
      expect(text.replace(/`/g, '')).toMatch(WARNING);
    },
  );
});
