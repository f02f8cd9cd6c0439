import type { ComponentChildren } from 'preact';

/**
 * A wide table's own sideways scroll: on a phone a table of many columns scrolls inside this box
 * and the page around it stays put (a laptop's screen fits every table; the browser tests check
 * both widths). Focusable and named, so a keyboard can scroll it and a screen reader says what it
 * holds.
 */
export function ScrollX(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="scroll-x" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}
