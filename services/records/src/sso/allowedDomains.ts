import { z } from 'zod';
import { MAX_ECHO } from '@brand/shared/errors';

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Most bad entries one refusal names; a paste of many is counted, so the sentence stays short. */
const MAX_NAMED = 5;

/** An entry as the sentence quotes it: cut, and what cannot be read (controls, formats) escaped. */
const shown = (entry: string): string => {
  const cut = entry.length > MAX_ECHO ? `${entry.slice(0, MAX_ECHO)}…` : entry;
  const readable = cut.replace(
    /\p{C}/gu,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `“${readable}”`;
};

/**
 * The sentence refusing the entries that are not domain names, naming each once (at most
 * MAX_NAMED) and no field path: an owner reads it above the form (the outside probe of
 * 2026-11-30 read "allowedDomains.0: …; allowedDomains.1: …").
 */
function notDomainsSentence(bad: string[]): string {
  const named = bad.slice(0, MAX_NAMED).map(shown);
  const more = bad.length - named.length;
  const list =
    more > 0
      ? `${named.join(', ')} and ${more} more`
      : named.length > 1
        ? `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`
        : named[0];
  const verb = bad.length > 1 ? 'are not domain names' : 'is not a domain name';
  return `${list} ${verb}; each allowed domain is a domain name, such as example.com.`;
}

/**
 * A connection's allowed email domains: trimmed, lower-cased, each a domain name (the refusal
 * names the ones that are not, in one issue on the list), one to twenty, each once.
 */
export const allowedDomains = z
  .array(z.string().trim().toLowerCase())
  .min(1, 'Allow at least one email domain.')
  .max(20, 'At most 20 email domains.')
  .superRefine((domains, ctx) => {
    const bad = [...new Set(domains.filter((d) => !DOMAIN.test(d)))];
    if (bad.length > 0) ctx.addIssue({ code: 'custom', message: notDomainsSentence(bad) });
  })
  .transform((ds) => [...new Set(ds)]);
