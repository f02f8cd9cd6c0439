import type { ResourceName } from '@brand/shared/resources';
import { RESOURCE_TABLES } from './resourceTables';

/**
 * A page's records as JSON from pg's rows as arrays (select-list order, wire-ready values):
 * the public records array of ListRecordsPageResponse.data_json, byte for byte what
 * JSON.stringify of pg's row objects gave before.
 *
 * Each resource has a row shape compiled once from RESOURCE_TABLES: a constructor that sets
 * one property per column, in wire order, so every row of a resource gets the same hidden
 * class and V8's JSON.stringify serialises the page on its fast path (the escaping of
 * strings included). Measured on the walk's pages (BENCHMARKS.md, scripts/bench/pageBuilders.mjs)
 * against pg's own row objects (built key by key for every row) and against a serializer
 * compiled to string concatenation (one JSON.stringify call per text value): the shapes
 * cost the least node CPU of the three, with the same SQL and so the same PostgreSQL work.
 */
type RowShape = new (values: readonly unknown[]) => object;

const COLUMN_NAME = /^[a-z][a-z0-9_]*$/;

/** The row shape of a resource: `this.<column> = values[<i>]` for each column in order. */
function compileRowShape(resource: ResourceName): RowShape {
  const columns = Object.keys(RESOURCE_TABLES[resource].columns);
  for (const column of columns) {
    // the names are our own constants; the check keeps the compiled source trivially safe
    if (!COLUMN_NAME.test(column)) throw new Error(`unexpected column name ${column}`);
  }
  const body = columns.map((column, i) => `this.${column} = values[${i}];`).join('\n');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiled once per resource from RESOURCE_TABLES (names checked above), never from input
  return new Function('values', body) as unknown as RowShape;
}

const ROW_SHAPES = Object.fromEntries(
  Object.keys(RESOURCE_TABLES).map((resource) => [
    resource,
    compileRowShape(resource as ResourceName),
  ]),
) as Record<ResourceName, RowShape>;

/** Where each resource's created_at and id are in a row (the cursor's position). */
export const POSITION_COLUMNS = Object.fromEntries(
  Object.entries(RESOURCE_TABLES).map(([resource, spec]) => {
    const columns = Object.keys(spec.columns);
    return [resource, { createdAt: columns.indexOf('created_at'), id: columns.indexOf('id') }];
  }),
) as Record<ResourceName, { createdAt: number; id: number }>;

/** The records array of `rows` (pg rows as arrays, in select-list order) as JSON. */
export function pageJsonOf(
  resource: ResourceName,
  rows: ReadonlyArray<readonly unknown[]>,
): string {
  const Shape = ROW_SHAPES[resource];
  const shaped = new Array<object>(rows.length);
  for (let i = 0; i < rows.length; i++) shaped[i] = new Shape(rows[i]!);
  return JSON.stringify(shaped);
}
