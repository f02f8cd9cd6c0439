/**
 * C0 and C1 controls (but tab, line feed and carriage return), and the Unicode bidirectional
 * controls, which could make text shown on a page read differently from what it is (a
 * receiver's answer reversing the order of what follows it, say).
 */
const INVISIBLE =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * Text from outside (a receiver's response body or headers) made visible as it is: each
 * control character becomes its code (`\u001b`). The renderer escapes markup; this only
 * keeps invisible characters from hiding or reordering what a person reads.
 */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
