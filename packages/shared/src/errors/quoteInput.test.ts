import { MAX_ECHO, quoteInput } from './quoteInput';

describe('quoteInput', () => {
  it('quotes short input as a JSON string', () => {
    expect(quoteInput('campaignz')).toBe('"campaignz"');
  });

  it('truncates long input with an ellipsis', () => {
    const out = quoteInput('x'.repeat(15_000));
    expect(out).toBe(`"${'x'.repeat(MAX_ECHO)}…"`);
  });

  it('escapes markup and control characters', () => {
    expect(quoteInput('<script>alert(1)</script>')).toBe(
      '"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"',
    );
    expect(quoteInput('a\nb\u0000c')).toBe('"a\\nb\\u0000c"');
    expect(quoteInput('a&b')).not.toContain('&');
  });
});
