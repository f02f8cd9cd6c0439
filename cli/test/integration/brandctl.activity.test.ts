import {
  createTestCa,
  createTopic,
  randomHex,
  startStack,
  testKafkaBrokers,
  TEST_ADMIN_TOKEN,
  uniqueConsumerGroup,
  uniqueTopic,
  type Stack,
} from '@brand/testkit';
import { brandctl, jsonOf, type ErrorOut } from './brandctlHarness';

// brandctl activity and requests against real records, webhooks and plans: the three logs merged
// and paged with --cursor without a duplicate or a gap, --all, the filters, --format csv|jsonl
// streamed to stdout, and bad input refused with its code.

let stack: Stack;
let brandId: string;

let ownerEmail = '';

beforeAll(async () => {
  const topic = uniqueTopic('cli-activity');
  await createTopic(topic);
  stack = await startStack({
    gateways: 0,
    plans: true,
    recordsEnv: { KAFKA_BROKERS: testKafkaBrokers().join(','), BUSINESS_EVENTS_TOPIC: topic },
    webhooks: {
      topic,
      groupId: uniqueConsumerGroup('cli-activity'),
      caFile: createTestCa().caFile,
    },
  });
  const { brand, owner } = await stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner-${randomHex(3)}@activity.test`,
  });
  brandId = brand.id;
  ownerEmail = owner.email;
  // 30 entries, 10 in each service's table, interleaved in time (written straight to the
  // tables so the test knows the times).
  for (let i = 0; i < 30; i++) {
    const schema = (['records', 'webhooks', 'plans'] as const)[i % 3]!;
    await stack.db.pool.query(
      `insert into ${schema}.activity (id, brand_id, action, actor_member_id, actor_email, subject_id, summary, created_at)
       values ($1, $2, $3, '', $4, $5, $6, timestamptz '2026-11-01T00:00:00Z' + make_interval(secs => $7))`,
      [
        `act_${schema.slice(0, 2)}${String(i).padStart(2, '0')}${randomHex(3)}`,
        brandId,
        schema === 'records'
          ? 'key.created'
          : schema === 'webhooks'
            ? 'receiver.added'
            : 'plan.cancelled',
        i < 6 ? 'ann@activity.test' : 'operator',
        `key_s${i % 2}`,
        i === 0 ? '@SUM(1)' : `entry ${i}`,
        i,
      ],
    );
  }
}, 120_000);
afterAll(() => stack?.close());

const run = (...args: string[]) =>
  brandctl(args, {
    RECORDS_GRPC_ADDR: stack.records.address,
    PLANS_GRPC_ADDR: stack.plans!.address,
    WEBHOOKS_GRPC_ADDR: stack.webhooks!.address,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
  });

interface Page {
  entries: { id: string; created_at: string; action: string }[];
  next_cursor: string;
}

it('pages the merged log with --cursor, and --all gives the same entries', async () => {
  const seen: string[] = [];
  let cursor = '';
  for (let n = 0; n < 10; n++) {
    const r = await run(
      'activity',
      '--brand',
      brandId,
      '--limit',
      '7',
      '--json',
      ...(cursor ? ['--cursor', cursor] : []),
    );
    expect(r.code).toBe(0);
    const page = jsonOf<Page>(r);
    seen.push(...page.entries.map((e) => e.id));
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  expect(seen).toHaveLength(30);
  expect(new Set(seen).size).toBe(30);
  const all = jsonOf<Page>(await run('activity', '--brand', brandId, '--all', '--json'));
  expect(all.entries.map((e) => e.id)).toEqual(seen);
  const times = all.entries.map((e) => e.created_at);
  expect([...times].sort().reverse()).toEqual(times);

  const human = await run('activity', '--brand', brandId, '--limit', '5');
  expect(human.stdout).toContain('More: --cursor ');
});

it('filters by actor, action, subject and time', async () => {
  const count = async (...filters: string[]) =>
    jsonOf<Page>(await run('activity', '--brand', brandId, '--all', '--json', ...filters)).entries
      .length;
  expect(await count('--actor', 'ANN@activity.test')).toBe(6);
  expect(await count('--actor', 'operator')).toBe(24);
  expect(await count('--action', 'plan.cancelled')).toBe(10);
  expect(await count('--action', 'receiver.')).toBe(10);
  expect(await count('--subject', 'key_s1')).toBe(15);
  expect(await count('--since', '2026-11-01T00:00:10Z', '--until', '2026-11-01T00:00:20Z')).toBe(
    10,
  );
});

it('exports CSV and JSON Lines to stdout', async () => {
  const csv = await run('activity', '--brand', brandId, '--format', 'csv', '--action', 'key.');
  expect(csv.code).toBe(0);
  const lines = csv.stdout.trim().split('\r\n');
  expect(lines[0]).toBe(
    'created_at,actor_email,actor_member_id,action,subject_id,summary,id,client_address,user_agent',
  );
  expect(lines).toHaveLength(11);
  expect(csv.stdout).toContain(",'@SUM(1),");
  const jsonl = await run('activity', '--brand', brandId, '--format', 'jsonl');
  const rows = jsonl.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string });
  expect(rows).toHaveLength(30);

  const requests = await run(
    'requests',
    '--brand',
    brandId,
    '--format',
    'jsonl',
    '--since',
    '2026-11-01',
  );
  expect(requests.code).toBe(0);
  expect(requests.stdout).toBe('');
  const reqCsv = await run('requests', '--brand', brandId, '--format', 'csv');
  expect(reqCsv.stdout.split('\r\n')[0]).toBe(
    'at,method,path,status,error_code,request_id,key_id,key_name,key_prefix,surface,id,client_address,reason,reason_at,reason_by',
  );
});

it('refuses bad input with its code (exit 1) or as usage (exit 2)', async () => {
  const refused = async (...args: string[]) => {
    const r = await run(...args, '--json');
    expect(r.code).toBe(1);
    return jsonOf<ErrorOut>(r).error;
  };
  const since = await refused('activity', '--brand', brandId, '--since', 'yesterday');
  expect(since.code).toBe('validation_failed');
  expect(since.message).toMatch(/^since: must be a time/);
  expect(await refused('activity', '--brand', brandId, '--cursor', 'bm9wZQ')).toMatchObject({
    code: 'invalid_cursor',
  });
  expect(
    await refused('requests', '--brand', brandId, '--since', '2026-11-02', '--until', '2026-11-01'),
  ).toMatchObject({ code: 'validation_failed', message: 'until: must be after since.' });
  expect(await refused('requests', '--brand', 'br_nope')).toMatchObject({ code: 'not_found' });
  expect((await run('activity', '--brand', brandId, '--format', 'xlsx')).code).toBe(2);
  expect((await run('activity', '--brand', brandId, '--limit', '500')).code).toBe(2);
});

it('records where an operator’s command came from: the address records saw, and brandctl', async () => {
  const made = await run(
    'key',
    'create',
    '--brand',
    brandId,
    '--name',
    'From the command line',
    '--env',
    'live',
    '--actor',
    ownerEmail,
  );
  expect(made.code).toBe(0);
  const { rows } = await stack.db.pool.query<{ client_address: string; user_agent: string }>(
    `select client_address, user_agent from records.activity
     where brand_id = $1 and action = 'key.created' and summary like 'From the command line%'`,
    [brandId],
  );
  expect(rows).toHaveLength(1);
  expect(rows[0]!.client_address).toMatch(/127\.0\.0\.1/);
  expect(rows[0]!.user_agent).toMatch(/^brandctl \(node v\d+/);
});
