// A hostile review of one brand against the shared console (2026-12-01): the exports are
// streamed (one page in memory), but nothing bounded how many one brand ran at once. Each export
// walks the services a page at a time for as long as its reader reads, so one brand's members
// (or one script with their session) opening dozens kept the console's thread serializing rows
// and records' (webhooks', plans') pools answering their pages, beside every other brand's
// pages. An export now takes one of EXPORTS_PER_BRAND places (2) of its brand in this console
// process; past them it is refused 429 export_busy with Retry-After before anything is read,
// and another brand's export is served meanwhile. Readers that stall hold their own brand's
// places only, until they go away.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { randomHex } from '@brand/testkit';
import type { ConsoleHttp } from '../browserlessClient';
import { signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

/** A brand whose request log is full (10,000 refused requests), and its owner signed in. */
async function brandWithLog(): Promise<{ brandId: string; owner: ConsoleHttp }> {
  const made = await cs.stack.admin.createBrand({
    ownerEmail: `owner@exp-${randomHex(4)}.test`,
  });
  await cs.stack.db.pool.query(
    `insert into records.request_log (brand_id, at, method, path, status, error_code, request_id,
       surface)
     select $1, now() - n * interval '1 second', 'GET', '/api/v1/records/' || repeat('x', 200),
            404, 'not_found', 'req_' || n, 'rest'
       from generate_series(1, 10000) n`,
    [made.brand.id],
  );
  return { brandId: made.brand.id, owner: await signInHttp(cs, made.owner.email) };
}

/** An export whose reader reads nothing: it stays in flight until `stop()`. */
async function stalledExport(
  owner: ConsoleHttp,
  brandId: string,
): Promise<{ res: IncomingMessage; stop: () => void }> {
  const url = new URL(`/brands/${brandId}/requests/export?format=csv`, cs.url);
  let req: ClientRequest | undefined;
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req = request(url, { headers: { cookie: owner.cookie } }, resolve);
    req.on('error', reject);
    req.end();
  });
  res.pause();
  return { res, stop: () => req?.destroy() };
}

describe('exports at once', () => {
  it('are bounded per brand: the third of one brand is 429 export_busy; others are served', async () => {
    const a = await brandWithLog();
    const b = await brandWithLog();
    const first = await stalledExport(a.owner, a.brandId);
    const second = await stalledExport(a.owner, a.brandId);
    try {
      expect([first.res.statusCode, second.res.statusCode]).toEqual([200, 200]);
      const third = await a.owner.get(`/brands/${a.brandId}/requests/export?format=jsonl`);
      expect(third.status).toBe(429);
      expect(third.headers.get('x-console-error')).toBe('export_busy');
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(third.body).toContain('2 exports of this brand are running');
      // another brand is not refused for it
      const other = await b.owner.get(`/brands/${b.brandId}/requests/export?format=jsonl`);
      expect(other.status).toBe(200);
      expect(other.body.trim().split('\n')).toHaveLength(10_000);
    } finally {
      first.stop();
      second.stop();
    }
    // a reader that went away gives its place back
    let again = await a.owner.get(`/brands/${a.brandId}/requests/export?format=csv`);
    for (let i = 0; again.status === 429 && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 100));
      again = await a.owner.get(`/brands/${a.brandId}/requests/export?format=csv`);
    }
    expect(again.status).toBe(200);
  }, 90_000);
});
