/**
 * The two kinds of free text the services take, checked in one place. PostgreSQL refuses a NUL
 * in text (before these checks, a 500 for bad input); other control characters and lone UTF-16
 * surrogates are refused too, since nothing a person types holds them and every client would
 * have to cope with them in what it reads back.
 */

// eslint-disable-next-line no-control-regex -- control characters are what is refused
const NOT_STORABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|\p{Cs}/u;
// eslint-disable-next-line no-control-regex -- as above, and line breaks and tabs too
const NOT_ONE_LINE = /[\u0000-\u001F\u007F\u2028\u2029]|\p{Cs}/u;

/** Text of several lines (a reason, a description): tabs and line breaks are fine. */
export function isStorableText(s: string): boolean {
  return !NOT_STORABLE.test(s);
}

/** One line a person reads and names a thing by (a key's, a passkey's, a brand's name). */
export function isOneLine(s: string): boolean {
  return !NOT_ONE_LINE.test(s);
}
