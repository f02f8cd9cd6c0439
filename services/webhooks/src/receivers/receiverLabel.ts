import { z } from 'zod';
import { refuseUnlessOneLine } from '@brand/shared/text';

/**
 * A receiver's (or an audit stream's) label: one line a person reads, by the rules of every name
 * (@brand/shared/text): control characters (tabs, line breaks, escape sequences, C1 controls),
 * the Unicode line and paragraph separators, lone surrogates and text-direction controls are
 * refused. A label is shown in pages, logs, mails and code examples, and none of them should
 * break a line, run a terminal escape (issue 23) or display reordered.
 */
export const label = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(100)
  .superRefine(refuseUnlessOneLine());
