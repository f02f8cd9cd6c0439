import type { ResourceName } from '@brand/shared/resources';
import { rfc3339 } from '@brand/shared/db';

/** How a column is stored in PostgreSQL and carried on the wire. */
export type ColumnKind = 'text' | 'int8' | 'timestamptz' | 'date' | 'text[]';

export interface ResourceTable {
  table: string;
  /** Every public field, in wire order, with its kind. Nullable ones are the proto `optional`s. */
  columns: Readonly<Record<string, ColumnKind>>;
}

/**
 * The one description of the six tables, shared by the reader (select list and row
 * mapping), the writer (demo data and test fixtures) and a unit test that checks it
 * against the generated proto messages, so a field cannot be added in one place only.
 */
export const RESOURCE_TABLES: Readonly<Record<ResourceName, ResourceTable>> = {
  campaigns: {
    table: 'campaigns',
    columns: {
      id: 'text',
      title: 'text',
      type: 'text',
      status: 'text',
      budget_amount: 'int8',
      spent_amount: 'int8',
      currency: 'text',
      platforms: 'text[]',
      starts_on: 'date',
      ends_on: 'date',
      created_at: 'timestamptz',
      updated_at: 'timestamptz',
      settled_at: 'timestamptz',
    },
  },
  submissions: {
    table: 'submissions',
    columns: {
      id: 'text',
      campaign_id: 'text',
      creator_handle: 'text',
      platform: 'text',
      content_url: 'text',
      status: 'text',
      rejection_reason: 'text',
      views: 'int8',
      created_at: 'timestamptz',
      updated_at: 'timestamptz',
      reviewed_at: 'timestamptz',
    },
  },
  payouts: {
    table: 'payouts',
    columns: {
      id: 'text',
      campaign_id: 'text',
      submission_id: 'text',
      creator_handle: 'text',
      amount: 'int8',
      currency: 'text',
      method: 'text',
      status: 'text',
      failure_reason: 'text',
      created_at: 'timestamptz',
      updated_at: 'timestamptz',
      paid_at: 'timestamptz',
    },
  },
  deposits: {
    table: 'deposits',
    columns: {
      id: 'text',
      campaign_id: 'text',
      amount: 'int8',
      currency: 'text',
      method: 'text',
      status: 'text',
      reference: 'text',
      created_at: 'timestamptz',
      updated_at: 'timestamptz',
      confirmed_at: 'timestamptz',
    },
  },
  conversions: {
    table: 'conversions',
    columns: {
      id: 'text',
      campaign_id: 'text',
      link_id: 'text',
      event: 'text',
      value_amount: 'int8',
      currency: 'text',
      order_reference: 'text',
      occurred_at: 'timestamptz',
      created_at: 'timestamptz',
    },
  },
  links: {
    table: 'links',
    columns: {
      id: 'text',
      campaign_id: 'text',
      creator_handle: 'text',
      destination_url: 'text',
      short_url: 'text',
      status: 'text',
      clicks: 'int8',
      conversions: 'int8',
      created_at: 'timestamptz',
      updated_at: 'timestamptz',
    },
  },
};

/** The select-list expression that renders a column in its wire form. */
export function selectExpression(column: string, kind: ColumnKind): string {
  switch (kind) {
    case 'timestamptz':
      return `${rfc3339(column)} as ${column}`;
    case 'date':
      return `to_char(${column}, 'YYYY-MM-DD') as ${column}`;
    case 'int8':
      // bigint arrives as a string from pg; the values (centavos, counters) are far below 2^53
      return `${column}::float8 as ${column}`;
    default:
      return column;
  }
}
