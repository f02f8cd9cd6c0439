import { oneLine } from './oneLine';

describe('oneLine', () => {
  it('flattens line breaks and keeps a short value as it is', () => {
    expect(oneLine(' Acme\r\nLabs\u2028 ', 40)).toBe('Acme Labs');
  });

  it('cuts by characters: an emoji at the cut stays whole, never half a surrogate pair', () => {
    // 'ab😀cd' is 6 UTF-16 units; the old cut (3 units before the ellipsis) kept half the emoji
    const cut = oneLine('ab😀cd', 4);
    expect(cut).toBe('ab😀…');
    expect(cut).not.toMatch(/\p{Cs}/u);
    expect(oneLine('ab😀', 3)).toBe('ab😀');
  });
});
