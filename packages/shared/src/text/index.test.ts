import { z } from 'zod';
import {
  everyTextRefusal,
  isOneLine,
  isStorableText,
  oneLineRefusal,
  refuseUnlessOneLine,
  storableTextRefusal,
} from './index';

describe('isOneLine', () => {
  it.each([
    ['plain text', 'Warehouse sync'],
    ['accents and emoji', 'Ünïcødé 🍕 brand'],
    // the first characters past the C1 controls
    ['a no-break space and Latin-1 letters', 'Caf\u00e9\u00a0\u00ff'],
    ['right-to-left script', 'שלום עולם'],
    // marks only nudge where neutral characters such as digits or brackets go; they cannot
    // reorder a run of text, and right-to-left names need them
    ['left-to-right and right-to-left marks', 'שלום\u200f (2) \u200eAcme'],
  ])('accepts %s', (_, s) => {
    expect(isOneLine(s)).toBe(true);
    expect(oneLineRefusal(s)).toBeUndefined();
  });

  it.each([
    ['U+202A left-to-right embedding', '\u202a'],
    ['U+202B right-to-left embedding', '\u202b'],
    ['U+202C pop directional formatting', '\u202c'],
    ['U+202D left-to-right override', '\u202d'],
    ['U+202E right-to-left override', '\u202e'],
    ['U+2066 left-to-right isolate', '\u2066'],
    ['U+2067 right-to-left isolate', '\u2067'],
    ['U+2068 first strong isolate', '\u2068'],
    ['U+2069 pop directional isolate', '\u2069'],
  ])('refuses %s, which reorders how a name displays', (_, control) => {
    const s = `Ünïcødé 🍕 ${control}RTL`;
    expect(isOneLine(s)).toBe(false);
    expect(oneLineRefusal(s)).toBe('must not contain text-direction controls');
  });

  it.each([
    ['a line break', 'a\nb'],
    ['a tab', 'a\tb'],
    ['an escape', 'a\u001b[31mb'],
    ['a NUL', 'a\u0000b'],
    ['DEL', 'a\u007fb'],
    ['a line separator', 'a\u2028b'],
    // C1 controls: U+0085 is a line break to some readers, U+009B a terminal's escape (CSI)
    ['a C1 next line (U+0085)', 'a\u0085b'],
    ['a C1 control sequence introducer (U+009B)', 'a\u009b2Jb'],
    ['a C1 control (U+0080)', 'a\u0080b'],
    ['a C1 control (U+009F)', 'a\u009fb'],
  ])('refuses %s as not one line, naming control characters', (_, s) => {
    expect(isOneLine(s)).toBe(false);
    expect(oneLineRefusal(s)).toBe('must be one line, without control characters');
  });

  it('refuses a lone surrogate as half of a character', () => {
    expect(isOneLine('a\ud800b')).toBe(false);
    expect(oneLineRefusal('a\ud800b')).toMatch(/^must not contain half of a character/);
  });

  it('names the first rule broken: a control character before a lone surrogate or a direction control', () => {
    expect(oneLineRefusal('\u202e\ud800\u001b')).toBe(
      'must be one line, without control characters',
    );
    expect(oneLineRefusal('\u202e\ud800')).toBe(
      'must not contain half of a character (an unpaired UTF-16 surrogate, such as half an emoji)',
    );
  });
});

describe('isStorableText', () => {
  it.each([
    ['plain text', 'Approved by the brand'],
    ['tabs and line breaks', 'Line one\n\tLine two\r\nLine three'],
    ['accents, emoji and right-to-left script', 'Ünïcødé 🍕 שלום'],
    // only a name is read as one line beside others: text of several lines keeps them
    ['text-direction controls', 'a \u202eRTL'],
    // the first characters past the C1 controls
    ['a no-break space and Latin-1 letters', 'Caf\u00e9\u00a0\u00ff'],
  ])('accepts %s', (_, s) => {
    expect(isStorableText(s)).toBe(true);
    expect(storableTextRefusal(s)).toBeUndefined();
  });

  it.each([
    ['a NUL', 'a\u0000b'],
    ['an escape', 'a\u001b[31mb'],
    ['DEL', 'a\u007fb'],
    ['a control character before a lone surrogate', 'a\ud800\u001b'],
    // C1 controls have no use in text a person types: U+0085 (NEL) breaks a line for some
    // readers only, U+009B starts a terminal's escape sequence (CSI)
    ['a C1 control (U+0080)', 'a\u0080b'],
    ['a C1 next line (U+0085)', 'line one\u0085line two'],
    ['a C1 control sequence introducer (U+009B)', 'a\u009b2Jb'],
    ['a C1 control (U+009F)', 'a\u009fb'],
  ])('refuses %s as control characters, in a sentence', (_, s) => {
    expect(isStorableText(s)).toBe(false);
    expect(storableTextRefusal(s)).toBe('must not contain control characters.');
  });

  it('refuses a lone surrogate as half of a character, in a sentence', () => {
    expect(isStorableText('a\udc00b')).toBe(false);
    expect(storableTextRefusal('a\udc00b')).toBe(
      'must not contain half of a character (an unpaired UTF-16 surrogate, such as half an emoji).',
    );
  });
});

describe('everyTextRefusal', () => {
  it('refuses a lone surrogate, which every kind of text refuses', () => {
    expect(everyTextRefusal('a\ud800b')).toBe(
      'must not contain half of a character (an unpaired UTF-16 surrogate, such as half an emoji)',
    );
    expect(everyTextRefusal('\udfffa')).toMatch(/^must not contain half of a character/);
  });

  it.each([
    ['plain text', 'Acme Labs'],
    ['an emoji (a surrogate pair)', 'Ünïcødé 🍕'],
    // each of these is refused by some kinds only: the one who reads the text knows its kind
    ['a line break', 'a\nb'],
    ['a control character', 'a\u001bb'],
    ['a text-direction control', 'a \u202eRTL'],
  ])('passes %s', (_, s) => {
    expect(everyTextRefusal(s)).toBeUndefined();
  });
});

describe('refuseUnlessOneLine', () => {
  const name = z.string().superRefine(refuseUnlessOneLine((why) => `A name ${why}.`));

  it('refuses with the reason in the sentence given', () => {
    const r = name.safeParse('Acme \u202eRTL');
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe('A name must not contain text-direction controls.');
    expect(name.safeParse('a\u001bb').error?.issues[0]?.message).toBe(
      'A name must be one line, without control characters.',
    );
  });

  it('passes a name on one line', () => {
    expect(name.safeParse('Acme Labs').success).toBe(true);
  });

  describe('of a secret', () => {
    const secret = z
      .string()
      .superRefine(refuseUnlessOneLine((why) => `The secret ${why}.`, 'secret'));
    const messageOf = (s: string) => secret.safeParse(s).error?.issues[0]?.message;

    it('lets text-direction controls through: nobody reads a secret', () => {
      expect(secret.safeParse('s3cr\u202et-\u2066x').success).toBe(true);
    });

    it('refuses line breaks, control characters and lone surrogates', () => {
      expect(messageOf('s3cret\n')).toBe(
        'The secret must be one line, without control characters.',
      );
      expect(messageOf('s3\u0000cret')).toBe(
        'The secret must be one line, without control characters.',
      );
      expect(messageOf('s3cret\ud800')).toMatch(/^The secret must not contain half of a character/);
    });
  });
});
