// Issue 37 item 4, the audit trail, over HTTP against real records, webhooks, plans and the
// console on real PostgreSQL: the activity page merges the three services' logs and pages
// them with one cursor (no duplicate, no gap, ties on created_at broken by id), every filter,
// the CSV and JSON Lines exports of the filtered range, bad input as 400 in words, another
// brand as 404, and the request log's time range and export.
import { randomHex } from '@brand/testkit';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack();
}, 120_000);
afterAll(() => cs?.close());

const SCHEMAS = ['records', 'webhooks', 'plans'] as const;

/**
 * 90 entries, 30 in each service's own table, at times that interleave across the three and
 * collide (two services share a created_at every third second), written straight to the
 * tables so the test controls time.
 */
async function seedActivity(brandId: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 90; i++) {
    const schema = SCHEMAS[i % 3]!;
    const second = Math.floor(i / 2);
    const id = `act_${schema.slice(0, 2)}${String(i).padStart(3, '0')}${randomHex(3)}`;
    ids.push(id);
    await cs.stack.db.pool.query(
      `insert into ${schema}.activity (id, brand_id, action, actor_member_id, actor_email, subject_id, summary, created_at)
       values ($1, $2, $3, '', $4, $5, $6, timestamptz '2026-11-01T00:00:00Z' + make_interval(secs => $7))`,
      [
        id,
        brandId,
        schema === 'records'
          ? 'key.created'
          : schema === 'webhooks'
            ? 'receiver.added'
            : 'plan.cancelled',
        i % 5 === 0 ? 'ann@brand.test' : 'operator',
        `key_s${i % 4}`,
        i === 7 ? '=HYPERLINK("http://evil.example","x"), "quoted"' : `entry ${i}`,
        second,
      ],
    );
  }
  return ids;
}

const idsOf = (body: string) => [...body.matchAll(/<code class="hint">(key_s\d)<\/code>/g)].length;

describe('the audit trail in the console', () => {
  it('pages the merged log, filters it, exports it, and refuses bad input in words', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    await seedActivity(brand.id);
    const http = await signInHttp(cs, owner.email);
    const base = `/brands/${brand.id}`;
    const range = 'since=2026-11-01T00:00&until=2026-11-02T00:00';

    // The JSON Lines export of the range is every seeded entry once, newest first.
    const all = await http.get(`${base}/activity/export?format=jsonl&${range}`);
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toBe('application/x-ndjson');
    expect(all.headers.get('content-disposition')).toMatch(
      /^attachment; filename="activity-br_\w+-\d{4}-\d{2}-\d{2}T\d{6}Z\.jsonl"$/,
    );
    const rows = all.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(rows).toHaveLength(90);
    const keys = rows.map((r) => `${r.created_at} ${r.id}`);
    expect([...keys].sort().reverse()).toEqual(keys);
    expect(new Set(rows.map((r) => r.id)).size).toBe(90);

    // Paging the page by its Older link: 50 + 40, the same entries in the same order.
    const first = await http.get(`${base}/activity?${range}`);
    expect(first.status).toBe(200);
    expect(idsOf(first.body)).toBe(50);
    const older = /href="([^"]+)" rel="next">Older entries/.exec(first.body)?.[1];
    expect(older).toBeDefined();
    const second = await http.get(older!.replace(/&amp;/g, '&'));
    expect(idsOf(second.body)).toBe(40);
    expect(second.body).not.toContain('rel="next"');
    const shown = [...`${first.body}${second.body}`.matchAll(/entry (\d+)|HYPERLINK/g)].length;
    expect(shown).toBe(90);

    // Each filter, checked against the export of the same filter.
    const count = async (q: string) =>
      (await http.get(`${base}/activity/export?format=jsonl&${q}`)).body
        .trim()
        .split('\n')
        .filter(Boolean).length;
    expect(await count(`${range}&actor=ann@brand.test`)).toBe(18);
    expect(await count(`${range}&action=receiver.added`)).toBe(30);
    expect(await count(`${range}&action=plan.`)).toBe(30);
    expect(await count(`${range}&subject_id=key_s1`)).toBe(23);
    expect(await count('since=2026-11-01T00:00:10Z&until=2026-11-01T00:00:20Z')).toBe(20);

    // The CSV: header, 90 rows, the formula cell guarded and quoted.
    const csv = await http.get(`${base}/activity/export?format=csv&${range}`);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(
      csv.body.startsWith(
        'created_at,actor_email,actor_member_id,action,subject_id,summary,id,client_address,user_agent\r\n',
      ),
    ).toBe(true);
    expect(csv.body).toContain(`"'=HYPERLINK(""http://evil.example"",""x""), ""quoted"""`);
    expect(csv.body.trim().split('\r\n')).toHaveLength(91);

    // Bad input: 400 with a stable code and a sentence, never a 500.
    for (const [q, code, words] of [
      ['format=xlsx', 'validation_failed', 'format: must be csv or jsonl.'],
      // the filters in the words of the page's labels, not the shared parser's field paths
      ['since=yesterday', 'validation_failed', '&quot;From&quot; as a UTC time, for example'],
      [
        'since=2026-11-02&until=2026-11-01',
        'validation_failed',
        '&quot;Before&quot; must be later than &quot;From&quot;.',
      ],
      ['cursor=bm9wZQ', 'invalid_cursor', 'That page link is not one of this list'],
      ['actor=%3Cscript%3E', 'validation_failed', '&quot;Who&quot; as an email address'],
      ['since=2026-11-01&since=2026-11-02', 'validation_failed', 'since: give it once.'],
    ] as const) {
      for (const path of q.startsWith('format')
        ? ['activity/export']
        : ['activity', 'activity/export']) {
        const res = await http.get(
          `${base}/${path}?${q}${path.endsWith('export') && !q.startsWith('format') ? '&format=csv' : ''}`,
        );
        expect([path, q, res.status, res.headers.get('x-console-error')]).toEqual([
          path,
          q,
          400,
          code,
        ]);
        expect(res.body).toContain(words);
      }
    }

    // Another brand's activity and exports: 404, not a hint that it exists.
    const other = await brandWithOwner(cs);
    for (const path of ['activity', 'activity/export?format=csv', 'requests/export?format=csv']) {
      const res = await http.get(`/brands/${other.brand.id}/${path}`);
      expect(res.status).toBe(404);
    }
  });

  it('the request log takes a time range and exports it; a member (not owner) gets no reasons', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const gw = cs.stack.gateway.url;
    for (let i = 0; i < 3; i++) {
      await fetch(`${gw}/api/v1/campaigns?limit=1`, {
        headers: { authorization: 'Bearer bk_live_nope' },
      });
    }
    const http = await signInHttp(cs, owner.email);
    const base = `/brands/${brand.id}`;
    const page = await http.get(`${base}/requests?since=2026-11-01T00:00`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(
      'href="' + `${base}/requests/export?since=2026-11-01T00%3A00&amp;format=csv"`,
    );
    const empty = await http.get(`${base}/requests/export?format=jsonl&until=2000-01-01`);
    expect(empty.status).toBe(200);
    expect(empty.body).toBe('');
    const csv = await http.get(`${base}/requests/export?format=csv`);
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="requests-br_/);
    expect(csv.body.split('\r\n')[0]).toBe(
      'at,method,path,status,error_code,request_id,key_id,key_name,key_prefix,surface,id,client_address,reason,reason_at,reason_by',
    );
    const bad = await http.get(`${base}/requests?since=2026-11-02&until=2026-11-01`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-console-error')).toBe('validation_failed');

    const member = `member-${randomHex(3)}@brand.test`;
    await cs.stack.admin.addMember({ brandId: brand.id, email: member, role: 'member' });
    const asMember = await signInHttp(cs, member);
    const memberCsv = await asMember.get(`${base}/requests/export?format=csv`);
    expect(memberCsv.status).toBe(200);
    expect(memberCsv.body.split('\r\n')[0]).not.toContain('reason');
    expect((await asMember.get(`${base}/activity/export?format=jsonl`)).status).toBe(200);
  });

  it('cuts an export at 100,000 rows, says so in its last line, and its cursor continues it', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    await cs.stack.db.pool.query(
      `insert into plans.activity (id, brand_id, action, actor_email, summary, created_at)
       select 'act_bound' || n, $1, 'plan.cancelled', 'operator', 'Plan ' || n,
              timestamptz '2026-10-01T00:00:00Z' + make_interval(secs => n)
         from generate_series(1, 100001) as n`,
      [brand.id],
    );
    // what autovacuum does after such a load in production (it is off on these machines): the
    // planner learns the table's size, so each export page walks the index instead of sorting
    // every older row of the brand (500 pages of 200: 33 s of PostgreSQL CPU without it)
    await cs.stack.db.pool.query('analyze plans.activity');
    const http = await signInHttp(cs, owner.email);
    const res = await http.get(`/brands/${brand.id}/activity/export?format=jsonl`);
    expect(res.status).toBe(200);
    const lines = res.body.trim().split('\n');
    expect(lines).toHaveLength(100_001);
    const last = JSON.parse(lines.at(-1)!) as {
      truncated: boolean;
      max_rows: number;
      cursor: string;
    };
    expect(last).toMatchObject({ truncated: true, max_rows: 100_000 });
    // The newest entry is the owner's sign-in (records), then the plans' 100,001, newest first.
    expect((JSON.parse(lines[0]!) as { action: string }).action).toBe('member.signed_in');
    expect((JSON.parse(lines[99_999]!) as { id: string }).id).toBe('act_bound3');
    const rest = await http.get(
      `/brands/${brand.id}/activity/export?format=csv&cursor=${last.cursor}`,
    );
    expect(rest.body.trim().split('\r\n').slice(1)).toEqual([
      expect.stringContaining(',plan.cancelled,,Plan 2,act_bound2'),
      expect.stringContaining(',plan.cancelled,,Plan 1,act_bound1'),
    ]);
  }, 180_000);
});
