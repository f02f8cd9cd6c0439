import { z } from 'zod';
import { fieldIssues } from '@brand/shared/errors';
import { allowedDomains } from './allowedDomains';

const refusalOf = (domains: string[]) => allowedDomains.safeParse(domains).error?.issues;

// The outside probe of 2026-11-30 read "allowedDomains.0: Each allowed domain is …;
// allowedDomains.1: …": our paths, the rule twice, and not which entry was wrong.
describe('allowedDomains', () => {
  it('names each entry that is not a domain name, once, in one sentence', () => {
    expect(refusalOf(['<script>.test', 'example.com', '🚀.test', '🚀.test'])).toEqual([
      expect.objectContaining({
        path: [],
        message:
          '“<script>.test” and “🚀.test” are not domain names; each allowed domain is a domain name, such as example.com.',
      }),
    ]);
    expect(refusalOf(['example.com', 'localhost'])?.map((i) => i.message)).toEqual([
      '“localhost” is not a domain name; each allowed domain is a domain name, such as example.com.',
    ]);
  });

  it('keeps the sentence short and readable: long entries cut, controls shown, many counted', () => {
    const [issue] = refusalOf(['a\u202eb', 'x'.repeat(300), 'c', 'd', 'e', 'f', 'g'])!;
    expect(issue?.message).toBe(
      `“a\\u202eb”, “${'x'.repeat(64)}…”, “c”, “d”, “e” and 2 more are not domain names; each allowed domain is a domain name, such as example.com.`,
    );
  });

  it('reads as typed: trimmed, lower-cased, each once', () => {
    expect(allowedDomains.parse([' Example.COM ', 'example.com'])).toEqual(['example.com']);
  });

  it('carries its field in the details, not in the sentence', () => {
    const error = z.object({ allowedDomains }).safeParse({ allowedDomains: ['nope'] }).error!;
    const [detail, ...others] = fieldIssues(error);
    expect(others).toEqual([]);
    expect(detail?.field).toBe('allowedDomains');
    expect(detail?.message).toMatch(/^“nope” is not a domain name;/);
  });
});
