/**
 * Cheap checks that a 2xx body has the shape its operation returns, so a broken server or
 * proxy answering `{"data":"notarray"}` or `null` is an ApiError `invalid_response` rather
 * than characters handed over as records. Only the envelope is checked, plus one `typeof` per
 * item: records are never walked field by field (a page of 200 stays cheap). Each check
 * returns what is wrong, or undefined when the body is fine.
 */
export type ShapeCheck = (body: unknown) => string | undefined;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

export interface PageShape {
  /** Items must carry a string `id` (the events follower stores them in its checkpoint). */
  itemIds?: boolean;
  /** The page was read after a position: `next_after` must be a number. */
  nextAfter?: boolean;
}

/** A page: an object with `data` an array of objects, `count` a number, `next_cursor` a string. */
export function pageShape(shape: PageShape = {}): ShapeCheck {
  return (body) => {
    if (!isObject(body)) return `the body is ${describe(body)}, not a page object`;
    const { data, count, next_cursor: nextCursor, next_after: nextAfter } = body;
    if (!Array.isArray(data)) return `the page's data is ${describe(data)}, not an array`;
    for (let i = 0; i < data.length; i++) {
      const item: unknown = data[i];
      if (!isObject(item)) return `data[${i}] is ${describe(item)}, not an object`;
      if (shape.itemIds && typeof item.id !== 'string') return `data[${i}] has no string id`;
    }
    if (count !== undefined && typeof count !== 'number') return 'count is not a number';
    if (nextCursor !== undefined && typeof nextCursor !== 'string')
      return 'next_cursor is not a string';
    if (shape.nextAfter && !(typeof nextAfter === 'number' && Number.isFinite(nextAfter)))
      return 'next_after is not a number';
    return undefined;
  };
}

/** One record: an object with a string `id`. */
export const recordShape: ShapeCheck = (body) => {
  if (!isObject(body)) return `the body is ${describe(body)}, not a record object`;
  return typeof body.id === 'string' ? undefined : 'the record has no string id';
};

/** A campaign plan: an object with an `id`. */
export const planShape: ShapeCheck = (body) => {
  if (!isObject(body)) return `the body is ${describe(body)}, not a plan object`;
  return body.id === undefined || body.id === null ? 'the plan has no id' : undefined;
};
