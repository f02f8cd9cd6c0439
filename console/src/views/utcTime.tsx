import { formatTime, formatTimeToSecond } from './format';

/**
 * A time in a table (`2026-11-23 11:42 UTC`): the date and the time of day each kept whole, the
 * line free to break between them only. A column of times then needs the width of a date, not of
 * the whole time, when a wide table has to share a laptop's screen; "11:42 / UTC" never happens.
 *
 * A time that has not happened yet (a key never used, a delivery with no next attempt) shows
 * `otherwise` in the hint's colour, so every table says "never" the same way.
 */
export function UtcTime(props: {
  at: string | null | undefined;
  toSecond?: boolean;
  otherwise?: string;
}) {
  if (!props.at) return props.otherwise ? <span class="hint">{props.otherwise}</span> : null;
  const text = props.toSecond ? formatTimeToSecond(props.at) : formatTime(props.at);
  const space = text.indexOf(' ');
  if (space < 0) return <>{text}</>;
  return (
    <time datetime={props.at} class="utc">
      <span>{text.slice(0, space)}</span> <span>{text.slice(space + 1)}</span>
    </time>
  );
}
