import type { ComponentChildren } from 'preact';

/** A short message box; `tone` picks its colour and role (errors are announced). */
export function Notice(props: {
  tone?: 'info' | 'ok' | 'warn' | 'error';
  children: ComponentChildren;
}) {
  const tone = props.tone ?? 'info';
  return (
    <div class={`notice ${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}
