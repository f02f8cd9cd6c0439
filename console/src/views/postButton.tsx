import type { ComponentChildren } from 'preact';
import { Csrf } from './layout';

/**
 * One button that changes something and needs no input (remove, revoke, retry, sign out): a form
 * of its own posting to `action` with the CSRF field, so no such button can be written without
 * it. `label` names the button for a screen reader when its text alone ("Remove") would not say
 * which row it acts on.
 */
export function PostButton(props: {
  action: string;
  csrfToken: string;
  kind?: 'danger' | 'secondary';
  label?: string;
  title?: string;
  inline?: boolean;
  children: ComponentChildren;
}) {
  return (
    <form method="post" action={props.action} class={props.inline ? 'inline' : undefined}>
      <Csrf token={props.csrfToken} />
      <button type="submit" class={props.kind} aria-label={props.label} title={props.title}>
        {props.children}
      </button>
    </form>
  );
}
