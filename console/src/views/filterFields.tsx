import type { ComponentChildren } from 'preact';
import type { ApiKey } from '@brand/proto/access/v1';
import { EVENT_TYPES } from '@brand/shared/enums';

/**
 * A field of a form: its label and its control held together (.field), so a form that wraps
 * never leaves a label at a line's end and its box on the next.
 */
export function Field(props: { id: string; label: string; children: ComponentChildren }) {
  return (
    <span class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
    </span>
  );
}

/** The event type a log or list is narrowed to: any, or one of the four. */
export function EventTypeField(props: { id: string; name: string; value: string }) {
  return (
    <Field id={props.id} label="Event">
      <select id={props.id} name={props.name}>
        <option value="" selected={props.value === ''}>
          Any event
        </option>
        {EVENT_TYPES.names.map((t) => (
          <option value={t} selected={props.value === t}>
            {t}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** An event or record id to find (`find`); the placeholder names the ids the page holds. */
export function FindIdField(props: { id: string; value: string; placeholder: string }) {
  return (
    <Field id={props.id} label="Event or record id">
      <input
        id={props.id}
        type="text"
        name="find"
        size={18}
        value={props.value}
        placeholder={props.placeholder}
        spellcheck={false}
        autocomplete="off"
      />
    </Field>
  );
}

/** The brand's keys as a filter's options, each by its name and prefix (never the secret). */
export function KeyOptions(props: { keys: ApiKey[]; value: string }) {
  return (
    <>
      {props.keys.map((k) => (
        <option value={k.id} selected={k.id === props.value}>
          {k.name} ({k.prefix}…)
        </option>
      ))}
    </>
  );
}
