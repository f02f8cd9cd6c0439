/**
 * The two kinds of free text the services take, checked in one place. PostgreSQL refuses a NUL
 * in text (before these checks, a 500 for bad input); other control characters and lone UTF-16
 * surrogates are refused too, since nothing a person types holds them and every client would
 * have to cope with them in what it reads back.
 */

// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
const NOT_STORABLE = new RegExp(`${CONTROL.source}|\\p{Cs}`, 'u');
// eslint-disable-next-line no-control-regex -- as above, and line breaks and tabs too
const NOT_ONE_LINE = /[\u0000-\u001F\u007F\u2028\u2029]|\p{Cs}/u;

/** Text of several lines (a reason, a description): tabs and line breaks are fine. */
export function isStorableText(s: string): boolean {
  return !NOT_STORABLE.test(s);
}

/**
 * Why isStorableText refuses `s`, as a field's message says it: a lone surrogate is no control
 * character (the outside probe, 2026-11-30, was told "control characters" for "\ud800").
 */
export function storableTextRefusal(s: string): string {
  return CONTROL.test(s)
    ? 'must not contain control characters.'
    : 'must not contain half of a character (an unpaired UTF-16 surrogate, such as half an emoji).';
}

/** One line a person reads and names a thing by (a key's, a passkey's, a brand's name). */
export function isOneLine(s: string): boolean {
  return !NOT_ONE_LINE.test(s);
}

/**
 * The first `max` characters (code points) of `s`, never half of a surrogate pair: slice counts
 * UTF-16 units, and a cut between the two halves of an astral character (an emoji) left a lone
 * surrogate, which reached PostgreSQL as U+FFFD.
 */
export function firstCharacters(s: string, max: number): string {
  if (s.length <= max) return s;
  let units = 0;
  let count = 0;
  for (const ch of s) {
    if (count === max) break;
    units += ch.length;
    count += 1;
  }
  return s.slice(0, units);
}
