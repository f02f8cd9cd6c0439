import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { unmarkedContractingStatements } from './migrationRules';

const SERVICES = path.resolve(__dirname, '../../../../services');

/**
 * Migrations written before the rule (issue 60), applied with the downtime of their day or
 * renaming tables they recreate at once: reviewed, kept as they are.
 */
const BEFORE_THE_RULE = new Set([
  'records/0003_brand_tier.sql',
  'records/0013_outbox_by_day.sql',
  'webhooks/0012_history_by_week.sql',
]);

describe('migrations expand, then contract', () => {
  const files = readdirSync(SERVICES).flatMap((service) => {
    const dir = path.join(SERVICES, service, 'migrations');
    try {
      return readdirSync(dir)
        .filter((f) => f.endsWith('.sql'))
        .map((f) => `${service}/${f}`);
    } catch {
      return [];
    }
  });

  it.each(files.filter((f) => !BEFORE_THE_RULE.has(f)))(
    '%s contracts nothing the previous release uses, or says why not',
    (file) => {
      const [service, name] = file.split('/');
      const sql = readFileSync(path.join(SERVICES, service!, 'migrations', name!), 'utf8');
      expect(unmarkedContractingStatements(sql)).toEqual([]);
    },
  );

  it('finds the planted rename of the upgrade test, and each contracting kind', () => {
    const found = unmarkedContractingStatements(
      [
        'alter table campaigns rename column title to name;',
        'alter table outbox rename to outbox_old;',
        'alter table brands drop column tier;',
        'drop table sessions;',
        'alter table campaigns alter column budget_amount type integer;',
        'alter table campaigns alter column settled_at set not null;',
      ].join('\n'),
    );
    expect(found.map((f) => f.what)).toEqual([
      'renames',
      'renames',
      'drops',
      'drops',
      'changes a column type',
      'makes a column required',
    ]);
  });

  it('passes what expands, and a contraction that says why', () => {
    expect(
      unmarkedContractingStatements(
        [
          'create table invitations (id text primary key);',
          'alter table brands add column region text;',
          '-- a default: rows the previous release inserts get it',
          'alter table sso_connections alter column provider_set_at set not null,',
          '  alter column provider_set_at set default now();',
          'drop index deliveries_due;',
          '-- contract: the previous release (0.9) stopped reading legacy_notes',
          'alter table plans drop column legacy_notes;',
        ].join('\n'),
      ),
    ).toEqual([]);
  });
});
