import { formatTime, formatTimeToSecond } from './format';

/**
 * A time in a table (`2026-11-23 11:42 UTC`): the date and the time of day each kept whole, the
 * line free to break between them only. A column of times then needs the width of a date, not of
 * the whole time, when a wide table has to share a laptop's screen; "11:42 / UTC" never happens.
 */
export function UtcTime(props: { at: string; toSecond?: boolean }) {
  const text = props.toSecond ? formatTimeToSecond(props.at) : formatTime(props.at);
  const space = text.indexOf(' ');
  if (space < 0) return <>{text}</>;
  return (
    <time datetime={props.at} class="utc">
      <span>{text.slice(0, space)}</span> <span>{text.slice(space + 1)}</span>
    </time>
  );
}
