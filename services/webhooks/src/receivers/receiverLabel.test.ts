import { label } from './receiverLabel';

const refusalOf = (s: string) => label.safeParse(s).error?.issues[0]?.message;

describe('a receiver label', () => {
  it.each([
    ['a line break', 'Orders\nprocess.exit(9)'],
    ['a tab', 'Tab\there'],
    ['an escape', 'Esc\u001b[2J'],
    ['a line separator', 'Orders\u2028x'],
    ['a C1 control (next line)', 'Orders\u0085x'],
    ['a C1 control (control sequence introducer)', 'Orders\u009b2J'],
  ])('refuses %s as not one line', (_, s) => {
    expect(refusalOf(s)).toBe('must be one line, without control characters');
  });

  // Before, the label's own pattern let both through: a lone surrogate was stored as U+FFFD and
  // a right-to-left override displayed the label reversed.
  it('refuses a lone surrogate as half of a character', () => {
    expect(refusalOf('Orders \ud83c')).toMatch(/^must not contain half of a character/);
  });

  it.each([
    ['a right-to-left override', 'Orders \u202eRTL'],
    ['an isolate', 'Orders \u2067olleh\u2069'],
  ])('refuses %s as a text-direction control', (_, s) => {
    expect(refusalOf(s)).toBe('must not contain text-direction controls');
  });

  it('keeps accepting right-to-left script with its marks, accents and emoji, trimmed', () => {
    expect(label.parse('  הזמנות\u200f (2) Ünïcødé 🍕\n')).toBe('הזמנות\u200f (2) Ünïcødé 🍕');
  });
});
