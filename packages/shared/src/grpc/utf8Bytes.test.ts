import { utf8Bytes } from './utf8Bytes';

describe('utf8Bytes', () => {
  it.each([
    ['empty', ''],
    ['ASCII', '[{"id":"sub_1","note":"plain \\n text"}]'],
    ['Latin-1', '[{"note":"café"}]'],
    ['beyond Latin-1', '[{"note":"✓ done"}]'],
    ['astral', '[{"note":"𝄞"}]'],
    ['a lone surrogate', '[{"note":"\ud800"}]'],
    ['control characters', '\u0000\u001f\u007f\u0080\u00ff'],
  ])('gives the UTF-8 bytes of %s text', (_, text) => {
    expect(utf8Bytes(text).equals(Buffer.from(text, 'utf8'))).toBe(true);
  });
});
