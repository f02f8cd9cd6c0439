import { parseTimeBound } from '@brand/shared/export';
import { Field } from './filterFields';

/**
 * A time as a person types it into a filter, read as UTC: a day ("2026-11-20"), a minute or a
 * second ("2026-11-20 14:00", with a space or a T), or RFC 3339 with an offset. Undefined when
 * it is none of those or names no real time (2026-02-30).
 */
export function parseUtcTimeText(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return parseTimeBound(value, 'time');
  } catch {
    return undefined;
  }
}

/** A time as the time fields show it, in UTC to the minute: "2026-11-20 14:00". */
export const toUtcText = (d: Date): string => d.toISOString().slice(0, 16).replace('T', ' ');

/**
 * A time field of a filter form: plain text in the ISO-like form the pages print times in
 * ("2026-11-20 14:00"), labelled UTC. Issue 62: datetime-local showed mm/dd/yyyy in the
 * browser's locale and clock, under a label saying UTC.
 */
export function UtcTimeInput(props: {
  id: string;
  name: string;
  label: string;
  value: string;
  required?: boolean;
}) {
  return (
    <Field id={props.id} label={`${props.label} (UTC)`}>
      <input
        id={props.id}
        type="text"
        name={props.name}
        value={props.value}
        placeholder="YYYY-MM-DD HH:MM"
        title="A UTC time such as 2026-11-20 14:00, or a day such as 2026-11-20"
        size={16}
        maxLength={40}
        spellcheck={false}
        autocomplete="off"
        required={props.required}
      />
    </Field>
  );
}
