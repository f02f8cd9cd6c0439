/*
 * The SCIM expressions scimmy parses (filters, attribute lists, PATCH paths), bounded before it
 * sees them. Two ways they could take the one thread that serves every brand's console:
 * - Its filter lexer matches a string with `"(?:[^"]|\\.|\n)*"`, whose alternatives overlap on
 *   backslashes and line breaks: on a string left open, the backtracking doubles with each of
 *   them (40 backslashes took 2 s, 60 take hours). No directory needs them: a line break is never
 *   part of a filter, and group names hold a backslash or two at most ("CORP\Sales").
 * - It multiplies a filter out into alternatives (a list of and-ed comparisons each) and builds
 *   every one: `(a pr or b pr) and (a pr or b pr) and …` thirty times is 2^30 of them in 565
 *   characters; each group of alternatives is also crossed with the plain comparisons beside it.
 *   alternativesOf() bounds that number from above, as scimmy's parser counts it.
 * scimmy builds filters from more than the query and the search body (node_modules/scimmy, lib
 * types.js and messages.js): from a resource's id in the URL (`id eq "<id>"`), from PATCH paths
 * and the keys of a path-less PATCH value (each key a path), and from the value objects of a
 * remove (`<key> eq "<value>"` joined by and/or). expressionsOf() finds them all.
 */

import { everyTextRefusal } from '@brand/shared/text';

/** Longer than any filter a provider sends (a userName or externalId compared, or a few). */
const MAX_LENGTH = 2048;
/** A few escaped quotes or a domain's backslash; the backtracking stays under a millisecond. */
const MAX_BACKSLASHES = 8;
/**
 * More alternatives than any provider's filter has (one, or a few userNames or-ed); scimmy builds
 * each of them, and matches every listed resource against each (100 take about a millisecond).
 */
const MAX_ALTERNATIVES = 100;
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/;

/** How scimmy reads the expression: a filter, or a comma-separated attribute list (`a pr and …`). */
export type ExpressionKind = 'filter' | 'attributes';

/** Why scimmy must not parse `expression`, or undefined when it may. */
export function expressionRefusal(
  expression: string,
  kind: ExpressionKind = 'filter',
): string | undefined {
  if (expression.length > MAX_LENGTH) return `is longer than ${MAX_LENGTH} characters`;
  if (CONTROL.test(expression)) return 'holds a control character';
  // a lone surrogate reaches records as U+FFFD (brokenText.ts): looked up as "�", or stored
  const broken = everyTextRefusal(expression);
  if (broken) return broken;
  if (expression.split('\\').length - 1 > MAX_BACKSLASHES) {
    return `holds more than ${MAX_BACKSLASHES} backslashes`;
  }
  // scimmy reads an attribute list as the filter `<a> pr and <b> pr and …` (types.js Resource).
  const asFilter =
    kind === 'attributes'
      ? expression
          .split(',')
          .map((a) => `${a} pr`)
          .join(' and ')
      : expression;
  if (alternativesOf(asFilter) > MAX_ALTERNATIVES) {
    return `multiplies out into more than ${MAX_ALTERNATIVES} alternatives`;
  }
  if (kind === 'filter' && INCOMPLETE.test(expression)) return 'is incomplete';
  return undefined;
}

/**
 * A filter ending in a logical operator or a comparison that takes a value, before any closing
 * bracket: scimmy drops a trailing `or` and keeps `eq` without a value, answering a filter the
 * provider did not send. Values are quoted, numbers, true, false or null, so none of these words
 * ends a complete filter unquoted.
 */
const INCOMPLETE = /(?:^|[\s([])(?:and|or|not|eq|ne|co|sw|ew|gt|lt|ge|le)[\s\])]*$/i;

const OPERATOR = /(and|or|not)(?=[^a-zA-Z0-9]|$)/iy;
const COMPARATOR = /(eq|ne|co|sw|ew|gt|lt|ge|le|pr|np)(?=[^a-zA-Z0-9]|$)/iy;
const WORD = /[-$\w][-$\w._:/%]*/y;

interface Shape {
  /** How many alternatives scimmy's parser builds, at most. */
  alternatives: number;
  /** The comparisons in it (eq, pr, …). */
  comparisons: number;
}

/**
 * An upper bound of the alternatives scimmy's Filter parser builds for `filter`, read as its
 * lexer reads it: a string runs to the next quote, a group `(…)` to the next `)`, an attribute's
 * filter `[…]` to the next `]`. The alternatives of each or-branch are the product, over its
 * groups and filters of more than one alternative, of their alternatives times the comparisons
 * beside them (scimmy crosses each such group with every plain comparison of the branch, and with
 * the groups before it); the branches add up.
 */
export function alternativesOf(filter: string): number {
  return shapeOf(filter).alternatives;
}

function shapeOf(text: string): Shape {
  let alternatives = 0;
  let comparisons = 0;
  // the branch being read: its groups of several alternatives, and its other comparisons
  let factors: number[] = [];
  let plain = 0;
  const endBranch = () => {
    alternatives += factors.reduce((n, f) => n * f * Math.max(1, plain), 1);
    factors = [];
    plain = 0;
  };
  const at = (re: RegExp, i: number) => {
    re.lastIndex = i;
    return re.exec(text)?.[0];
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === '"') {
      const end = text.indexOf('"', i + 1);
      i = end < 0 ? text.length : end + 1;
    } else if (c === '(' || c === '[') {
      const end = text.indexOf(c === '(' ? ')' : ']', i + 1);
      if (end < 0) break; // scimmy refuses it
      const inner = shapeOf(text.slice(i + 1, end));
      comparisons += inner.comparisons;
      if (inner.alternatives > 1) factors.push(inner.alternatives);
      else plain += inner.comparisons;
      i = end + 1;
    } else {
      const operator = at(OPERATOR, i);
      const comparator = operator === undefined ? at(COMPARATOR, i) : undefined;
      const token = operator ?? comparator ?? at(WORD, i) ?? c;
      if (operator?.toLowerCase() === 'or') endBranch();
      if (comparator !== undefined) {
        comparisons += 1;
        plain += 1;
      }
      i += token.length;
    }
  }
  endBranch();
  return { alternatives, comparisons };
}

/** The ids records issues: "scu_" (users) or "scg_" (groups) and 1 to 64 letters or digits. */
const RESOURCE_ID: Record<string, RegExp> = {
  users: /^scu_[A-Za-z0-9]{1,64}$/,
  groups: /^scg_[A-Za-z0-9]{1,64}$/,
};
/** A schema's URN or a resource type's name (ServiceProviderConfig has no id). */
const DISCOVERY_ID = /^[A-Za-z0-9._:-]{1,200}$/;

/**
 * Whether the request names a resource by an id scimmy must not parse: false for an id of the
 * form records issues (Users, Groups) or a plain name (Schemas, ResourceTypes), and for a path
 * that names no resource. scimmy reads a resource as the filter `id eq "<id>"`, the id pasted
 * in as the URL gave it; express's routes match any case and a trailing slash.
 */
export function isUnknownId(path: string): boolean {
  const m = /^\/([^/]+)\/([^/]+)\/?$/.exec(path);
  if (!m) return false;
  const [, resource, raw] = m as unknown as [string, string, string];
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    return true;
  }
  const kind = resource.toLowerCase();
  if (id.toLowerCase() === '.search' && (kind === 'users' || kind === 'groups')) return false;
  const pattern = RESOURCE_ID[kind] ?? DISCOVERY_ID;
  return !pattern.test(id);
}

/** Something of a request scimmy would parse, and the SCIM error type of its refusal. */
export interface Expression {
  scimType: 'invalidFilter' | 'invalidPath' | 'invalidValue';
  where: string;
  value: string;
  /**
   * How scimmy reads it: a filter, an attribute list, an attribute name or a value it pastes into
   * `<name> eq "<value>"` (a remove's value objects), or a value it would paste unquoted.
   */
  kind: ExpressionKind | 'attributeName' | 'quotedValue' | 'unquotedValue';
}

/** A name scimmy may paste into `<name> eq "<value>"`: an attribute, maybe with its schema's URN. */
const ATTRIBUTE_NAME = /^[A-Za-z$][\w$:.-]{0,199}$/;

/** Why scimmy must not parse `e`, or undefined when it may. */
export function refusalOf(e: Expression): string | undefined {
  switch (e.kind) {
    case 'attributeName':
      return ATTRIBUTE_NAME.test(e.value) ? undefined : 'is not an attribute name';
    case 'quotedValue':
      return e.value.includes('"') ? 'holds a quote' : expressionRefusal(e.value);
    case 'unquotedValue':
      return 'is not a string, number, boolean or null';
    default:
      return expressionRefusal(e.value, e.kind);
  }
}

/** What a request gives scimmy to parse, each with the SCIM error type its refusal carries. */
export function expressionsOf(
  method: string,
  path: string,
  query: unknown,
  body: unknown,
): Expression[] {
  const found: Expression[] = [];
  const add = (
    scimType: Expression['scimType'],
    where: string,
    value: string,
    kind: Expression['kind'] = 'filter',
  ) => found.push({ scimType, where, value, kind });
  const kindOf = (name: string): ExpressionKind =>
    name === 'attributes' || name === 'excludedAttributes' ? 'attributes' : 'filter';
  // Every query parameter: filter, attributes, excludedAttributes and whatever scimmy reads next.
  if (query && typeof query === 'object') {
    for (const [name, value] of Object.entries(query)) {
      for (const v of Array.isArray(value) ? value : [value]) {
        if (typeof v === 'string') add('invalidFilter', name, v, kindOf(name));
      }
    }
  }
  if (!isPlainObject(body)) return found;
  // express matches routes in any case: /Users/.SEARCH is the search too
  if (method === 'POST' && /\/\.search\/?$/i.test(path)) {
    // a SearchRequest's attribute lists are arrays, joined with commas (messages.js)
    for (const name of ['filter', 'attributes', 'excludedAttributes', 'sortBy']) {
      const v = body[name];
      const joined = Array.isArray(v) && v.every((x) => typeof x === 'string') ? v.join(',') : v;
      if (typeof joined === 'string') add('invalidFilter', name, joined, kindOf(name));
    }
  }
  if (method === 'PATCH' && Array.isArray(body.Operations)) {
    for (const op of body.Operations as unknown[]) {
      if (!isPlainObject(op)) continue;
      if (typeof op.path === 'string') add('invalidPath', 'path', op.path);
      // A path-less add or replace: each key of the value is a path (messages.js #add). Nested
      // keys too, though scimmy reads only the first level as paths today.
      if (op.path === undefined && isPlainObject(op.value)) {
        for (const key of keysOf(op.value)) add('invalidPath', 'a key of value', key);
      }
      // A remove's value objects become `<key> eq "<value>"`, joined by and/or (messages.js
      // #remove); a string value, its characters' (Object.entries of a string).
      const verb = typeof op.op === 'string' ? op.op.toLowerCase() : '';
      if (verb === 'remove' && op.value !== undefined) {
        for (const item of Array.isArray(op.value) ? (op.value as unknown[]) : [op.value]) {
          if (typeof item === 'string') {
            add('invalidValue', 'a value to remove', item, 'quotedValue');
          } else if (isPlainObject(item)) {
            for (const [key, v] of Object.entries(item)) {
              add('invalidPath', 'a key of a value to remove', key, 'attributeName');
              if (typeof v === 'string') add('invalidValue', 'a value to remove', v, 'quotedValue');
              else if (typeof v === 'object' && v !== null) {
                add('invalidValue', 'a value to remove', '', 'unquotedValue');
              }
            }
          }
        }
      }
    }
  }
  return found;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every key of a JSON value, however deep (without recursion: a body may nest deeply). */
function keysOf(value: Record<string, unknown>): string[] {
  const keys: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (const inner of v as unknown[]) stack.push(inner);
    } else if (isPlainObject(v)) {
      for (const [k, inner] of Object.entries(v)) {
        keys.push(k);
        stack.push(inner);
      }
    }
  }
  return keys;
}

/**
 * More values than a provider removes in one request (it sends a few members at a time). scimmy
 * matches each against every value of the attribute, and parsing 100,000 took 13 s.
 */
const MAX_REMOVALS = 1000;

/**
 * Why a PatchOp body must not reach scimmy whatever its expressions, or undefined: a path-less
 * add or replace whose value is no object (scimmy checks `typeof value === "object"`, which null
 * passes, and answers Object.entries(null) with a 500), or too many values removed.
 */
export function patchRefusal(
  body: unknown,
): { scimType: 'invalidValue'; detail: string } | undefined {
  if (!isPlainObject(body) || !Array.isArray(body.Operations)) return undefined;
  let removals = 0;
  for (const [i, op] of (body.Operations as unknown[]).entries()) {
    if (!isPlainObject(op) || typeof op.op !== 'string') continue;
    const verb = op.op.toLowerCase();
    if (
      (verb === 'add' || verb === 'replace') &&
      op.path === undefined &&
      !isPlainObject(op.value)
    ) {
      return {
        scimType: 'invalidValue',
        detail: `Operation ${i + 1}: ${verb === 'add' ? 'an add' : 'a replace'} without a path takes an object as its value.`,
      };
    }
    if (verb === 'remove') {
      removals += Array.isArray(op.value) ? op.value.length : op.value === undefined ? 0 : 1;
    }
  }
  if (removals > MAX_REMOVALS) {
    return {
      scimType: 'invalidValue',
      detail: `The request removes more than ${MAX_REMOVALS} values; send them in several.`,
    };
  }
  return undefined;
}
