/** Longest piece of client input echoed in an error message. */
export const MAX_ECHO = 64;

/**
 * Client input as it may appear inside an error message: quoted, truncated to MAX_ECHO
 * characters (with an ellipsis), control characters and markup escaped. A message never
 * reflects raw input, so a hostile path or parameter name can neither bloat an error body
 * nor smuggle markup into a page or log that shows it.
 */
export function quoteInput(value: string, max = MAX_ECHO): string {
  const cut = value.length > max ? `${value.slice(0, max)}…` : value;
  return JSON.stringify(cut).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
