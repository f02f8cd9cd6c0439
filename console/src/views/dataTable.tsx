import type { ComponentChildren } from 'preact';

/**
 * A table of rows, as every list in the console is drawn: a caption saying what the rows are and
 * in which order, one header cell for each column, and the rows (`children`, the `<tr>`s).
 *
 * It sits in a box of its own that scrolls sideways: on a phone a table of many columns scrolls
 * inside the box and the page around it stays put (a laptop's screen fits every table; the
 * browser tests check both widths). The box is focusable and named by `label`, a short name
 * ("Keys"), so a keyboard can scroll it and a screen reader says what it holds; the caption is a
 * sentence and is read with the table, and stays put within the box's width while the table
 * scrolls (console.css: as wide as the table, a phone showed only its first words). A column's heading may be markup (a visually hidden
 * "Action").
 */
export function DataTable(props: {
  label: string;
  caption: ComponentChildren;
  /** `visually-hidden` when the page's heading already says what the rows are. */
  captionClass?: 'hint' | 'visually-hidden';
  columns: readonly ComponentChildren[];
  children: ComponentChildren;
}) {
  return (
    <div class="scroll-x" role="region" aria-label={props.label} tabIndex={0}>
      <table>
        <caption class={props.captionClass ?? 'hint'}>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col">{column}</th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
