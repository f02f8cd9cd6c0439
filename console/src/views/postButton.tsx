import type { ComponentChildren } from 'preact';
import { Csrf } from './layout';

/**
 * One button that changes something and needs no input from the person (remove, revoke, retry,
 * withdraw, sign out): a form of its own posting to `action` with the CSRF field, so no such
 * button can be written without it. `fields` are the hidden values it posts beside the CSRF
 * field (which mapping, which domain); `data` the form's data attributes (`data-brand`: which
 * brand an answer is for). `label` names the button for a screen reader when its text alone
 * ("Remove") would not say which row it acts on.
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
  children: ComponentChildren;
}) {
  const data = Object.fromEntries(
    Object.entries(props.data ?? {}).map(([name, value]) => [`data-${name}`, value]),
  );
  return (
    <form method="post" action={props.action} class={props.inline ? 'inline' : undefined} {...data}>
      <Csrf token={props.csrfToken} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={props.kind} aria-label={props.label} title={props.title}>
        {props.children}
      </button>
    </form>
  );
}
