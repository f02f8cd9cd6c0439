import type { RefinementCtx } from 'zod';

/**
 * The kinds of free text the services take, checked in one place. PostgreSQL refuses a NUL in
 * text (before these checks, a 500 for bad input); other control characters and lone UTF-16
 * surrogates are refused too, since nothing a person types holds them and every client would
 * have to cope with them in what it reads back.
 *
 * - several lines (a reason, a description): tabs and line breaks are fine.
 * - a name: one line a person reads and names a thing by (a key's, a passkey's, a brand's, a
 *   SCIM user's); text-direction controls are refused too.
 * - a secret: one line nobody reads (an identity provider's client secret), so the rule that
 *   is there for how text displays does not apply.
 */
const KINDS = ['several lines', 'name', 'secret'] as const;
type TextKind = (typeof KINDS)[number];

/**
 * Every rule, in the order a refusal names them: text breaking several is told of the first
 * that applies to its kind (an escape with a lone surrogate is told of the control character).
 */
const RULES: readonly { of: readonly TextKind[]; refuses: RegExp; why: string }[] = [
  {
    // every control character, C1 too (U+0080-U+009F: U+0085 breaks a line for some readers,
    // U+009B starts a terminal's escape), and the Unicode line and paragraph separators
    of: ['name', 'secret'],
    refuses: /[\p{Cc}\u2028\u2029]/u,
    why: 'must be one line, without control characters',
  },
  {
    of: ['several lines'],
    // As above, but tabs and line breaks (LF, CR) are fine. C1 controls (U+0080-U+009F) are
    // refused here too: nobody types one, U+009B starts a terminal's escape sequence, and NEL
    // (U+0085) breaks a line for some readers only, so it is a control, not a line break.
    // The Unicode line and paragraph separators are not controls: text of several lines keeps them.
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    refuses: /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/,
    why: 'must not contain control characters',
  },
  {
    // a lone surrogate is no control character (the outside probe, 2026-11-30, was told
    // "control characters" for "\ud800"), and PostgreSQL would store it as U+FFFD
    of: ['several lines', 'name', 'secret'],
    refuses: /\p{Cs}/u,
    why: 'must not contain half of a character (an unpaired UTF-16 surrogate, such as half an emoji)',
  },
  {
    // The bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): each
    // reorders the text after it, so a name holding one displays other than it reads (an outside
    // probe, 2026-11-30, showed `\u202eRTL` reversed in tables). The marks U+200E and U+200F stay
    // allowed: they only place neutral characters (digits, brackets) beside right-to-left words,
    // cannot reverse a run, and names in Hebrew or Arabic need them.
    of: ['name'],
    refuses: /[\u202A-\u202E\u2066-\u2069]/,
    why: 'must not contain text-direction controls',
  },
];

/** The words of the first rule of `kind` that `s` breaks, or undefined when it breaks none. */
function refusal(s: string, kind: TextKind): string | undefined {
  return RULES.find((rule) => rule.of.includes(kind) && rule.refuses.test(s))?.why;
}

/**
 * Why `s` is no text of any kind (the rules every kind keeps: no lone surrogate), or undefined.
 * For an edge that reads a body of text of many kinds at once (a SCIM resource, a PATCH) before
 * a service does: the service never sees a lone surrogate, which the gRPC client's UTF-8
 * encoding turns into U+FFFD before the call is sent. The rules of each kind stay the service's.
 */
export function everyTextRefusal(s: string): string | undefined {
  return RULES.find((rule) => KINDS.every((kind) => rule.of.includes(kind)) && rule.refuses.test(s))
    ?.why;
}

/** Text of several lines (a reason, a description): tabs and line breaks are fine. */
export function isStorableText(s: string): boolean {
  return refusal(s, 'several lines') === undefined;
}

/**
 * Why isStorableText refuses `s`, as a field's message says it (a sentence: "must not contain
 * control characters."), or undefined when it does not.
 */
export function storableTextRefusal(s: string): string | undefined {
  const why = refusal(s, 'several lines');
  return why === undefined ? undefined : `${why}.`;
}

/** A name: one line, no control characters, no lone surrogates, no text-direction controls. */
export function isOneLine(s: string): boolean {
  return refusal(s, 'name') === undefined;
}

/**
 * Why isOneLine refuses `s`, as a field's message says it ("name: must be ..."), or undefined
 * when it does not. An escape was once told "must be one line", which it was.
 */
export function oneLineRefusal(s: string): string | undefined {
  return refusal(s, 'name');
}

/**
 * A zod check (`.superRefine(refuseUnlessOneLine())`) refusing what isOneLine refuses, with
 * oneLineRefusal's words; `say` puts them in a sentence where a form shows the message as is.
 * For a secret (`of: 'secret'`), text-direction controls are let through: nobody reads it.
 */
export function refuseUnlessOneLine(
  say: (why: string) => string = (why) => why,
  of: 'name' | 'secret' = 'name',
): (s: string, ctx: RefinementCtx) => void {
  return (s, ctx) => {
    const why = refusal(s, of);
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
