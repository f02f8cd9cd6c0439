import { makeRecords, makePendingSubmissions } from '@brand/testkit';
import { jsonOf, useBrandctlStack } from './brandctlHarness';

// brandctl submission approve|reject, payout pay, campaign settle end to end against a real
// records process: each prints the new record and the event id (text and --json), the
// change is really made with its outbox event, and refusals carry the service's reason.

const h = useBrandctlStack();

interface ChangeOut {
  record: { resource: string; id: string; status: string } & Record<string, unknown>;
  event_id: string;
}

let brandId: string;
beforeAll(async () => {
  brandId = (await h.stack.admin.createBrand()).brand.id;
});

const outboxEvent = async (eventId: string) => {
  const { rows } = await h.stack.db.pool.query<{ type: string; record_id: string }>(
    `select type, payload->>'id' as record_id from records.outbox where id = $1`,
    [eventId],
  );
  return rows[0];
};

describe('submission list: what waits for review', () => {
  it('lists a brand’s pending submissions, newest first, in pages, and refuses bad input', async () => {
    const brand = (await h.stack.admin.createBrand()).brand.id;
    const pending = await makePendingSubmissions(h.stack.db.pool, brand, 5);
    const decided = pending[0]!;
    expect((await h.run('submission', 'approve', decided.id)).code).toBe(0);

    type ListOut = {
      submissions: Array<{ id: string; status: string }>;
      next_cursor: string | null;
    };
    const list = async (...args: string[]) =>
      jsonOf<ListOut>(await h.run('submission', 'list', '--brand', brand, ...args, '--json'));
    const all = await list('--status', 'pending');
    expect(all.submissions.map((x) => x.status)).toEqual(Array(4).fill('pending'));
    expect(new Set(all.submissions.map((x) => x.id))).toEqual(
      new Set(pending.slice(1).map((x) => x.id)),
    );
    expect(all.next_cursor).toBeNull();

    const first = await list('--status', 'pending', '--limit', '3');
    expect(first.submissions).toHaveLength(3);
    const rest = await list('--status', 'pending', '--limit', '3', '--cursor', first.next_cursor!);
    expect([...first.submissions, ...rest.submissions].map((x) => x.id)).toEqual(
      all.submissions.map((x) => x.id),
    );
    const approved = await list('--status', 'approved');
    expect(approved.submissions.map((x) => x.id)).toEqual([decided.id]);

    const human = await h.run('submission', 'list', '--brand', brand, '--status', 'pending');
    expect(human.stdout).toMatch(/^id +status +created/);
    expect(human.stdout).toContain(pending[1]!.id);

    const badStatus = await h.run('submission', 'list', '--brand', brand, '--status', 'waiting');
    expect(badStatus.code).toBe(2);
    const badCursor = await h.run(
      'submission',
      'list',
      '--brand',
      brand,
      '--cursor',
      'x!',
      '--json',
    );
    expect(badCursor.code).toBe(1);
    expect(jsonOf<{ error: { code: string } }>(badCursor).error.code).toBe('validation_failed');
    const badBrand = await h.run('submission', 'list', '--brand', 'acme', '--json');
    expect(jsonOf<{ error: { code: string } }>(badBrand).error.code).toBe('validation_failed');
  });
});

describe('business changes', () => {
  it('submission approve prints the record and event id as JSON', async () => {
    const [sub] = await makePendingSubmissions(h.stack.db.pool, brandId, 1);
    const r = await h.run('submission', 'approve', sub!.id, '--json');
    expect(r.code).toBe(0);
    const out = jsonOf<ChangeOut>(r);
    expect(out.event_id).toMatch(/^evt_[A-Za-z0-9]{20}$/);
    expect(out.record).toMatchObject({ resource: 'submissions', id: sub!.id, status: 'approved' });
    expect(await outboxEvent(out.event_id)).toEqual({
      type: 'submission.approved',
      record_id: sub!.id,
    });
  });

  it('submission reject needs --reason and records it', async () => {
    const [sub] = await makePendingSubmissions(h.stack.db.pool, brandId, 1);
    const missing = await h.run('submission', 'reject', sub!.id);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--reason/);

    const r = await h.run('submission', 'reject', sub!.id, '--reason', 'Video under 15 seconds');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Submission ${sub!.id} rejected\\.`));
    expect(r.stdout).toMatch(/status +rejected/);
    expect(r.stdout).toMatch(/rejection_reason +Video under 15 seconds/);
    const eventId = /Event (evt_[A-Za-z0-9]{20}) \(submission\.rejected\)/.exec(r.stdout)?.[1];
    expect(await outboxEvent(eventId!)).toEqual({
      type: 'submission.rejected',
      record_id: sub!.id,
    });
  });

  it('payout pay and campaign settle print the new record and event id', async () => {
    const [po] = await makeRecords(h.stack.db.pool, brandId, 'payouts', 1, () => ({
      status: 'pending',
    }));
    const [cmp] = await makeRecords(h.stack.db.pool, brandId, 'campaigns', 1, () => ({
      status: 'completed',
    }));
    const paid = jsonOf<ChangeOut>(await h.run('payout', 'pay', po!.id, '--json'));
    expect(paid.record).toMatchObject({ resource: 'payouts', id: po!.id, status: 'paid' });
    expect(await outboxEvent(paid.event_id)).toMatchObject({ type: 'payout.paid' });

    const settled = await h.run('campaign', 'settle', cmp!.id);
    expect(settled.code).toBe(0);
    expect(settled.stdout).toMatch(/status +settled/);
    expect(settled.stdout).toMatch(/Event evt_[A-Za-z0-9]{20} \(campaign\.settled\)/);
  });

  it('refuses a repeated change with the current status, and an unknown id', async () => {
    const [sub] = await makeRecords(h.stack.db.pool, brandId, 'submissions', 1, () => ({
      status: 'approved',
    }));
    const repeated = await h.refused('submission', 'approve', sub!.id);
    expect(repeated).toMatchObject({ code: 'precondition_failed' });
    expect(repeated.message).toMatch(/already approved/);
    expect(await h.refused('payout', 'pay', 'po_doesNotExist')).toMatchObject({
      code: 'not_found',
    });
    const blank = await h.refused('submission', 'reject', 'sub_doesNotExist', '--reason', ' ');
    expect(blank).toMatchObject({ code: 'validation_failed' });
  });

  it.each([
    ['submission', 'approve'],
    ['submission', 'reject'],
    ['payout', 'pay'],
    ['campaign', 'settle'],
  ])('%s %s --help explains the command', async (noun, verb) => {
    const r = await h.run(noun, verb, '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`Usage: brandctl ${noun} ${verb} \\[options\\] <\\w+Id>`));
    expect(r.stdout).toContain('--json');
    expect(r.stdout).toMatch(/emits (submission|payout|campaign)\.\w+/);
    expect(r.stdout).toMatch(new RegExp(`\nExamples?:\n {2}\\$ brandctl ${noun} ${verb} `));
  });

  it.each(['submission', 'payout', 'campaign'])(
    'brandctl %s --help lists its commands',
    async (noun) => {
      const r = await h.run(noun, '--help');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: brandctl ${noun}`));
      expect(r.stdout).toMatch(/\nExamples?:\n {2}\$ brandctl /);
    },
  );
});
