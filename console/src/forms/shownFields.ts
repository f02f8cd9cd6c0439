/**
 * A settings form that posts every field back (a receiver's URL, label and events; a stream's
 * name and destination) carries, hidden, each field as the page showed it (`shown_<name>`), and
 * a save sends only what the person changed. Sending every field, a save put back whatever
 * another owner had changed since the page was opened, silently (a hostile review of lost
 * updates, 2026-12-01). A field the person changed that someone else also changed meanwhile (now
 * neither what the page showed nor what was posted) is a conflict: the save is refused (409) and
 * the form shown again, holding what the person changed and every other field as it is now
 * (`keptForm`). The comparison is with the values read for this request, a moment before the
 * change is sent.
 */

/** A field's value: text, or a set of names (checkboxes). */
export type FieldValue = string | readonly string[];

/** The hidden field naming what the page showed of `name`. */
export const shownName = (name: string): string => `shown_${name}`;

/** A set of names as one hidden field's value. */
export const joinSet = (values: readonly string[]): string => [...values].sort().join(',');

/** A set of names back from one hidden field's value (`joinSet`'s inverse). */
export const splitSet = (value: string): string[] => value.split(',').filter((v) => v !== '');

const same = (a: FieldValue, b: FieldValue): boolean =>
  typeof a === 'string' || typeof b === 'string' ? a === b : joinSet(a) === joinSet(b);

/**
 * What of `posted` to send, given what the page showed (from the body's `shown_*` fields) and the
 * values `now`: `changes` holds the fields the person changed (all of them for a form posted
 * without `shown_*`, from a page served before this rule), or `conflicts` names those changed by
 * someone else as well.
 */
export function changedFields<T extends Record<string, FieldValue>>(
  body: Record<string, unknown>,
  posted: T,
  now: { [K in keyof T]: FieldValue },
): { changes: Partial<T>; conflicts: (keyof T & string)[] } {
  const changes: Partial<T> = {};
  const conflicts: (keyof T & string)[] = [];
  for (const name of Object.keys(posted) as (keyof T & string)[]) {
    const raw = body[shownName(name)];
    const value = posted[name] as T[keyof T & string] & FieldValue;
    if (typeof raw !== 'string') {
      changes[name] = value;
      continue;
    }
    const shown: FieldValue = typeof value === 'string' ? raw : splitSet(raw);
    if (same(value, shown)) continue;
    const current: FieldValue = now[name];
    if (!same(current, shown) && !same(current, value)) conflicts.push(name);
    else changes[name] = value;
  }
  return { changes, conflicts };
}

/**
 * The form shown again with a refusal, in the form's own terms: each field the person changed
 * (sent or refused, as `changedFields` decided) as they typed it, every other as it is `now`.
 * Shown as their page had it, a field they left alone would be sent by the next save as a change
 * of theirs, putting it back over another owner's change (a disable turned on again).
 */
export function keptForm<F extends object>(
  typed: F,
  now: Partial<F>,
  decided: { changes: object; conflicts: readonly string[] },
): F {
  const kept = { ...typed };
  for (const name of Object.keys(now) as (keyof F & string)[]) {
    if (!(name in decided.changes) && !decided.conflicts.includes(name)) kept[name] = now[name]!;
  }
  return kept;
}

/** The refusal's sentence: which fields someone else changed, and to what. */
export function conflictMessage(fields: readonly { label: string; now: FieldValue }[]): string {
  const named = fields
    .map(
      (f) =>
        `${f.label} (now “${typeof f.now === 'string' ? f.now : joinSet(f.now).replace(/,/g, ', ')}”)`,
    )
    .join(', ');
  return `Not saved: someone else changed the ${named} since you opened this page. The form keeps your changes, with everything else as it is now: check it and save again.`;
}
