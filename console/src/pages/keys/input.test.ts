import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { formatRemaining } from '../../views/countdown';
import { CreateKeyForm, requestedExpiry } from './input';
import { keyState } from './keyState';

const NOW = Date.parse('2030-01-10T12:00:00Z');
const form = (extra: Record<string, string>) =>
  CreateKeyForm.parse({ name: 'Sync', environment: 'live', ...extra });

describe('CreateKeyForm', () => {
  const refusalOf = (name: string) =>
    CreateKeyForm.safeParse({ name, environment: 'live' }).error?.issues[0]?.message;

  it('says which rule of a name was broken, in a sentence the form shows as is', () => {
    expect(refusalOf('Sync \u202eRTL')).toBe(
      'A key name must not contain text-direction controls.',
    );
    expect(refusalOf('a\u0000b')).toBe('A key name must be one line, without control characters.');
    expect(refusalOf('Sync \ud83c')).toMatch(/^A key name must not contain half of a character/);
  });

  it('says a name too long in a sentence naming the field and the limit', () => {
    expect(refusalOf('k'.repeat(10_000))).toBe('A key name is at most 200 characters.');
  });

  it('keeps a name in right-to-left script with its marks', () => {
    expect(form({ name: 'סנכרון\u200f (2)' }).name).toBe('סנכרון\u200f (2)');
  });
});

describe('requestedExpiry', () => {
  it('is none unless asked', () => {
    expect(requestedExpiry(form({}), NOW)).toEqual({ expiresAt: '' });
  });

  it('counts spans from now', () => {
    expect(requestedExpiry(form({ expires: '24h' }), NOW)).toEqual({
      expiresAt: '2030-01-11T12:00:00.000Z',
    });
  });

  it('reads a time as UTC and refuses a past or unreadable one', () => {
    expect(requestedExpiry(form({ expires: 'at', expires_at: '2030-02-01T09:30' }), NOW)).toEqual({
      expiresAt: '2030-02-01T09:30:00.000Z',
    });
    expect(requestedExpiry(form({ expires: 'at', expires_at: '2030-01-10T11:59' }), NOW)).toEqual({
      error: 'The expiry must be in the future.',
    });
    expect(requestedExpiry(form({ expires: 'at', expires_at: '' }), NOW)).toHaveProperty('error');
  });
});

describe('formatRemaining', () => {
  it.each([
    [0, '0 s'],
    [-5_000, '0 s'],
    [12_400, '12 s'],
    [245_000, '4 min 05 s'],
    [3 * 3_600_000 + 12 * 60_000, '3 h 12 min'],
    [2 * 86_400_000 + 4 * 3_600_000 + 59_000, '2 d 4 h'],
  ])('%p ms reads %p', (ms, words) => {
    expect(formatRemaining(ms)).toBe(words);
  });

  it('reads the same as the copy public/countdown.js ticks in the browser', () => {
    const script = readFileSync(path.join(__dirname, '../../../public/countdown.js'), 'utf8');
    const page: { formatRemaining?: (ms: number) => string } = {
      document: { querySelectorAll: () => [] },
    } as never;
    runInNewContext(`${script}\nthis.formatRemaining = formatRemaining;`, page);
    for (let ms = -2_000; ms < 3 * 86_400_000; ms += 7_777_777 + (ms % 997))
      expect(page.formatRemaining!(ms)).toBe(formatRemaining(ms));
    for (const ms of [0, 59_999, 60_000, 3_599_999, 3_600_000, 86_399_999, 86_400_000])
      expect(page.formatRemaining!(ms)).toBe(formatRemaining(ms));
  });
});

describe('keyState', () => {
  it('tells revoked, expired, expiring and active apart at the instant', () => {
    const at = '2030-01-10T12:00:00.000Z';
    expect(keyState({ revoked_at: at, expires_at: undefined }, NOW)).toBe('revoked');
    expect(keyState({ revoked_at: undefined, expires_at: at }, NOW)).toBe('expired');
    expect(keyState({ revoked_at: undefined, expires_at: at }, NOW - 1)).toBe('expiring');
    expect(keyState({ revoked_at: undefined, expires_at: undefined }, NOW)).toBe('active');
  });
});
