import type { ComponentChildren } from 'preact';
import { Csrf } from './layout';

/**
 * One button that changes something and needs no input from the person (remove, revoke, retry,
 * withdraw, sign out): a form of its own posting to `action` with the CSRF field, so no such
 * button can be written without it. `fields` are the hidden values it posts beside the CSRF
 * field (which mapping, which domain); `data` the form's data attributes (`data-brand`: which
 * brand an answer is for). `label` names the button for a screen reader when its text alone
 * ("Remove") would not say which row it acts on. A page that asks "Revoke this key?" gives
 * `cancel`, the page to go back to, and gets its "Cancel" beside the button.
 */
export function PostButton(props: {
  action: string;
  csrfToken: string;
  kind?: 'danger' | 'secondary';
  label?: string;
  title?: string;
  inline?: boolean;
  fields?: Record<string, string>;
  data?: Record<string, string>;
  /** Where "Cancel" beside the button leads, on a page that asks to confirm a change. */
  cancel?: string;
  children: ComponentChildren;
}) {
  const button = (
    <button type="submit" class={props.kind} aria-label={props.label} title={props.title}>
      {props.children}
    </button>
  );
  const data = Object.fromEntries(
    Object.entries(props.data ?? {}).map(([name, value]) => [`data-${name}`, value]),
  );
  return (
    <form method="post" action={props.action} class={props.inline ? 'inline' : undefined} {...data}>
      <Csrf token={props.csrfToken} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      {props.cancel === undefined ? (
        button
      ) : (
        <div class="actions">
          {button}
          <a href={props.cancel}>Cancel</a>
        </div>
      )}
    </form>
  );
}
