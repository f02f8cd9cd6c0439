/**
 * A settings form refused over fields someone else changed meanwhile (409 edit_conflict,
 * forms/shownFields.ts): the refusal names the fields, links to each, and each field it names
 * is marked invalid and described by it, so a person tabbing or reading through the form meets
 * the reason at the field, not only at the top of the page.
 */

/** The id of a page's refusal notice, which the fields it names are described by. */
const REFUSAL_ID = 'refusal';

/** A field a refusal names: its input's (or group's) id and its label as the form shows it. */
export interface NamedField {
  id: string;
  label: string;
}

/**
 * Why the form was refused (announced: role=alert), then a link to each field it names. Nothing
 * when there is no message.
 */
export function RefusalNotice(props: { message?: string; fields?: readonly NamedField[] }) {
  if (!props.message) return null;
  const fields = props.fields ?? [];
  return (
    <div id={REFUSAL_ID} class="notice error" role="alert">
      {props.message}
      {fields.length > 0 && (
        <p class="refused-fields">
          {fields.length === 1 ? 'The field: ' : 'The fields: '}
          {fields.map((f, i) => (
            <>
              {i > 0 && ', '}
              <a href={`#${f.id}`}>{f.label}</a>
            </>
          ))}
          .
        </p>
      )}
    </div>
  );
}

/**
 * The fields a refusal names, in the form's order: those of `conflicts` that `fields` (the form's
 * own, by field name) holds.
 */
export function namedFields(
  conflicts: readonly string[] | undefined,
  fields: Readonly<Record<string, NamedField>>,
): NamedField[] {
  const named = new Set(conflicts ?? []);
  return Object.entries(fields)
    .filter(([name]) => named.has(name))
    .map(([, field]) => field);
}

/**
 * An input's attributes when a refusal may name it: invalid and described by the refusal (after
 * its own hint, if any) when `named`, else its hint alone.
 */
export function refusalAttrs(
  named: boolean,
  hintId?: string,
): { 'aria-invalid'?: 'true'; 'aria-describedby'?: string } {
  if (!named) return hintId === undefined ? {} : { 'aria-describedby': hintId };
  return {
    'aria-invalid': 'true',
    'aria-describedby': hintId === undefined ? REFUSAL_ID : `${hintId} ${REFUSAL_ID}`,
  };
}

/** A group's (a fieldset of checkboxes) attributes: described by the refusal when `named`. */
export function refusalGroupAttrs(named: boolean): { 'aria-describedby'?: string } {
  return named ? { 'aria-describedby': REFUSAL_ID } : {};
}
