// Migration 0032: invitations still open from a sender who already left the brand or is no
// longer an owner are withdrawn (before that release nothing withdrew them: a rogue owner's
// invitation of an accomplice outlived the rogue's removal), with their unsent mails; an
// owner's and an operator's stay open. Applied to a schema migrated up to the release before.
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runMigrations } from '@brand/shared/db';
import { createLogger } from '@brand/shared/logger';
import { MIGRATIONS_DIR } from '@brand/records/migrations';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';

const log = createLogger({ service: 'test', level: 'silent' });
const schema = 'records_before_0032';
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

it('withdraws the open invitations of senders gone or demoted, and their unsent mails', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'records-migrations-'));
  try {
    const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql'));
    const before = files.filter((f) => f < '0032_');
    for (const f of before) copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
    await runMigrations(db.pool, { schema, dir, log });
    const q = (sql: string) => db.pool.query(sql.replaceAll('S.', `${schema}.`));
    await q(
      `insert into S.brands (id, name, tier, verified) values ('br_stale', 'Stale', 'plus', true)`,
    );
    await q(`insert into S.brand_members (id, brand_id, email, role, removed_at) values
      ('mem_owner', 'br_stale', 'owner@b.test', 'owner', null),
      ('mem_gone', 'br_stale', 'gone@b.test', 'owner', now()),
      ('mem_demoted', 'br_stale', 'demoted@b.test', 'admin', null)`);
    await q(`insert into S.member_invitations
      (id, brand_id, email, role, invited_by_member_id, invited_by_email, expires_at) values
      ('inv_byowner', 'br_stale', 'a@x.test', 'owner', 'mem_owner', 'owner@b.test', now() + interval '7 days'),
      ('inv_bygone', 'br_stale', 'b@x.test', 'owner', 'mem_gone', 'gone@b.test', now() + interval '7 days'),
      ('inv_bydemoted', 'br_stale', 'c@x.test', 'owner', 'mem_demoted', 'demoted@b.test', now() + interval '7 days'),
      ('inv_byoperator', 'br_stale', 'd@x.test', 'member', '', 'operator', now() + interval '7 days')`);
    await q(`insert into S.member_mails (id, kind, email, brand_id, invitation_id) values
      ('mm_gone', 'invitation', 'b@x.test', 'br_stale', 'inv_bygone'),
      ('mm_owner', 'invitation', 'a@x.test', 'br_stale', 'inv_byowner')`);

    for (const f of files.filter((f) => !before.includes(f)))
      copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
    await runMigrations(db.pool, { schema, dir, log });

    const { rows } = await q(`select id, outcome from S.member_invitations order by id`);
    expect(rows).toEqual([
      { id: 'inv_bydemoted', outcome: 'withdrawn' },
      { id: 'inv_bygone', outcome: 'withdrawn' },
      { id: 'inv_byoperator', outcome: null },
      { id: 'inv_byowner', outcome: null },
    ]);
    const mails = await q(`select id from S.member_mails order by id`);
    expect(mails.rows).toEqual([{ id: 'mm_owner' }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
