import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Campaign, Conversion, Deposit, Link, Payout, Submission } from '@brand/proto/records/v1';
import { RESOURCES, type ResourceName } from '@brand/shared/resources';
import { MIGRATIONS_DIR } from '../db/migrations';
import { RESOURCE_TABLES, type ColumnKind } from './resourceTables';

/** Each resource's generated message, with every field at its default. */
const MESSAGES: Record<ResourceName, Record<string, unknown>> = {
  campaigns: { ...Campaign.fromPartial({}) },
  submissions: { ...Submission.fromPartial({}) },
  payouts: { ...Payout.fromPartial({}) },
  deposits: { ...Deposit.fromPartial({}) },
  conversions: { ...Conversion.fromPartial({}) },
  links: { ...Link.fromPartial({}) },
};

interface SqlColumn {
  type: string;
  nullable: boolean;
}

/** `create table` column definitions from the migrations: table → column → type/nullability. */
function migratedTables(): Map<string, Map<string, SqlColumn>> {
  const sql = readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => readFileSync(path.join(MIGRATIONS_DIR, f), 'utf8'))
    .join('\n')
    .replace(/--[^\n]*/g, '');
  const tables = new Map<string, Map<string, SqlColumn>>();
  for (const m of sql.matchAll(/create table (\w+) \(([\s\S]*?)\n\);/g)) {
    const columns = new Map<string, SqlColumn>();
    for (const line of m[2]!.split('\n').map((l) => l.trim())) {
      const c = /^(\w+) (text\[\]|text|bigint|timestamptz|date|boolean|bytea)(?=[\s,]|$)(.*)$/.exec(
        line,
      );
      if (!c) continue;
      const rest = c[3]!;
      columns.set(c[1]!, {
        type: c[2]!,
        nullable: !/not null|primary key/.test(rest),
      });
    }
    tables.set(m[1]!, columns);
  }
  return tables;
}

const SQL_TYPE: Record<ColumnKind, string> = {
  text: 'text',
  int8: 'bigint',
  timestamptz: 'timestamptz',
  date: 'date',
  'text[]': 'text[]',
};

const JS_TYPE: Record<ColumnKind, string> = {
  text: 'string',
  timestamptz: 'string',
  date: 'string',
  int8: 'number',
  'text[]': 'array',
};

describe('RESOURCE_TABLES', () => {
  it('describes exactly the six resources', () => {
    expect(Object.keys(RESOURCE_TABLES).sort()).toEqual([...RESOURCES].sort());
  });

  it.each(RESOURCES)('%s columns are the proto message fields, in field order', (resource) => {
    expect(Object.keys(RESOURCE_TABLES[resource].columns)).toEqual(Object.keys(MESSAGES[resource]));
  });

  it.each(RESOURCES)('%s column kinds match the proto field types', (resource) => {
    const jsType = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v);
    for (const [column, kind] of Object.entries(RESOURCE_TABLES[resource].columns)) {
      const value = MESSAGES[resource][column];
      // an optional proto field defaults to undefined; all of ours are strings
      const actual = value === undefined ? 'string' : jsType(value);
      expect([column, actual]).toEqual([column, JS_TYPE[kind]]);
    }
  });

  describe('against the migrations', () => {
    const tables = migratedTables();

    it('finds the six tables', () => {
      for (const r of RESOURCES) expect(tables.has(RESOURCE_TABLES[r].table)).toBe(true);
    });

    it.each(RESOURCES)('%s columns exist with the declared SQL type', (resource) => {
      const table = tables.get(RESOURCE_TABLES[resource].table)!;
      for (const [column, kind] of Object.entries(RESOURCE_TABLES[resource].columns)) {
        expect([column, table.get(column)?.type]).toEqual([column, SQL_TYPE[kind]]);
      }
      expect(table.has('brand_id')).toBe(true);
    });

    it.each(RESOURCES)(
      '%s: a column is nullable exactly when the proto field is optional',
      (resource) => {
        const table = tables.get(RESOURCE_TABLES[resource].table)!;
        for (const column of Object.keys(RESOURCE_TABLES[resource].columns)) {
          const optional = MESSAGES[resource][column] === undefined;
          expect([column, table.get(column)?.nullable]).toEqual([column, optional]);
        }
      },
    );
  });
});
