import type { RefinementCtx } from 'zod';

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
const NOT_ONE_LINE = /[\u0000-\u001F\u007F\u2028\u2029]/;
const LONE_SURROGATE = /\p{Cs}/u;

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

/**
 * The bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): each
 * reorders the text after it, so a name holding one displays other than it reads (an outside
 * probe, 2026-11-30, showed `\u202eRTL` reversed in tables). The marks U+200E and U+200F stay
 * allowed: they only place neutral characters (digits, brackets) beside right-to-left words,
 * cannot reverse a run, and names in Hebrew or Arabic need them.
 */
const DIRECTION_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;

/**
 * One line a person reads and names a thing by (a key's, a passkey's, a brand's, a SCIM
 * token's name): no line breaks, tabs or other control characters, no lone surrogates and no
 * text-direction controls.
 */
export function isOneLine(s: string): boolean {
  return oneLineRefusal(s) === undefined;
}

/**
 * Why isOneLine refuses `s`, as a field's message says it ("name: must be ..."), or undefined
 * when it does not. An escape was once told "must be one line", which it was.
 */
export function oneLineRefusal(s: string): string | undefined {
  if (NOT_ONE_LINE.test(s)) return 'must be one line, without control characters';
  if (LONE_SURROGATE.test(s)) return storableTextRefusal(s).replace(/\.$/, '');
  if (DIRECTION_CONTROL.test(s)) return 'must not contain text-direction controls';
  return undefined;
}

/**
 * A zod check (`.superRefine(refuseUnlessOneLine())`) refusing what isOneLine refuses, with
 * oneLineRefusal's words; `say` puts them in a sentence where a form shows the message as is.
 */
export function refuseUnlessOneLine(
  say: (why: string) => string = (why) => why,
): (s: string, ctx: RefinementCtx) => void {
  return (s, ctx) => {
    const why = oneLineRefusal(s);
    if (why !== undefined) ctx.addIssue({ code: 'custom', message: say(why) });
  };
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
