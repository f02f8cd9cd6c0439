/*
 * Text no service would take, found in a SCIM body before anything reads it. Records refuses a
 * lone UTF-16 surrogate (half of an emoji) in every name, but never sees one from here: the
 * generated gRPC client encodes strings as UTF-8 and sends a lone surrogate as U+FFFD, so a
 * provider's "\ud800" was stored as "�". Every string of the body is checked, whatever attribute
 * it is (a resource's, an extension's, a PATCH operation's value), by the rules every kind of
 * text keeps (@brand/shared/text); the rules of each kind (a name's one line, its text-direction
 * controls) stay records', which sees those characters as sent.
 */
import { everyTextRefusal } from '@brand/shared/text';

/** A step of the way to a value in a JSON body: a key, or an index in a list. */
type Step = string | number;

/** A string of the body that breaks a rule: where it is, in a provider's words, and why. */
export interface BrokenText {
  where: string;
  why: string;
}

/** A value met on the walk, and the way to it (each step once: copying paths was quadratic). */
interface Visit {
  value: unknown;
  step?: Step;
  parent?: Visit;
}

/** The steps from the body to `visit`. */
function pathOf(visit: Visit): Step[] {
  const path: Step[] = [];
  for (let v: Visit | undefined = visit; v?.step !== undefined; v = v.parent) path.push(v.step);
  return path.reverse();
}

/**
 * The first string of `body` (a value or a key) that no kind of text may hold, or undefined.
 * Walked without recursion: a body may nest deeply.
 */
export function brokenTextIn(body: unknown): BrokenText | undefined {
  const stack: Visit[] = [{ value: body }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value } = visit;
    if (typeof value === 'string') {
      const why = everyTextRefusal(value);
      if (why) return { where: attributeAt(body, pathOf(visit)), why };
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1) {
        stack.push({ value: value[i] as unknown, step: i, parent: visit });
      }
    } else if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value as Record<string, unknown>);
      for (const [key] of entries) {
        const why = everyTextRefusal(key);
        if (why) {
          const parent = attributeAt(body, pathOf(visit));
          return { where: parent ? `an attribute name in ${parent}` : 'an attribute name', why };
        }
      }
      for (let i = entries.length - 1; i >= 0; i -= 1) {
        const [key, inner] = entries[i]!;
        stack.push({ value: inner, step: key, parent: visit });
      }
    }
  }
  return undefined;
}

/**
 * The attribute at `path`, as a provider names it: `name.givenName`, `emails[1].value`; in a
 * PATCH, the operation's path and what lies under its value, and which operation
 * (`displayName (operation 2)`), since `Operations[1].value` names no attribute.
 */
function attributeAt(body: unknown, path: Step[]): string {
  const [first, index, ...inOperation] = path;
  if (first !== 'Operations' || typeof index !== 'number') return dotted(path);
  const operations = (body as { Operations: unknown[] }).Operations;
  const operation = `operation ${index + 1}`;
  const named = dotted(stepsInOperation(operations[index], inOperation));
  return named ? `${named} (${operation})` : operation;
}

/**
 * The steps within a PATCH operation as attributes: its value is the attribute its path names,
 * and a path-less value's keys are paths themselves (RFC 7644 3.5.2).
 */
function stepsInOperation(operation: unknown, steps: Step[]): Step[] {
  const [field, ...under] = steps;
  if (field !== 'value') return steps;
  const opPath = (operation as { path?: unknown }).path;
  if (typeof opPath === 'string') return [opPath, ...under];
  return under.length > 0 ? under : ['value'];
}

const dotted = (steps: Step[]): string =>
  steps.reduce<string>(
    (named, step) =>
      typeof step === 'number' ? `${named}[${step}]` : named ? `${named}.${step}` : step,
    '',
  );
