import { ReceiverForm, recoverySinceOf, switchTimeOf, TestForm } from './input';

describe('ReceiverForm', () => {
  const good = {
    url: 'https://hooks.example.com/brand',
    label: 'Warehouse',
    events: 'payout.paid',
  };
  const refusalOf = (form: Record<string, unknown>) =>
    ReceiverForm.safeParse({ ...good, ...form }).error?.issues.map((i) => i.message);

  it('says a URL or label too long in sentences naming the field and the limit', () => {
    expect(refusalOf({ url: `https://x.example/${'a'.repeat(10_000)}` })).toEqual([
      'A receiver URL is at most 2048 characters.',
    ]);
    // 100, as the webhooks service takes a label
    expect(refusalOf({ label: 'l'.repeat(101) })).toEqual([
      'A receiver label is at most 100 characters.',
    ]);
    expect(ReceiverForm.safeParse({ ...good, label: 'l'.repeat(100) }).success).toBe(true);
  });

  it('says an event type not on the list in words', () => {
    expect(refusalOf({ events: ['payout.paid', 'nope'] })).toEqual([
      'Choose event types from the list.',
    ]);
    expect(TestForm.safeParse({ event_type: 'nope' }).error?.issues[0]?.message).toBe(
      'Choose one of the receiver’s event types.',
    );
  });
});

const now = new Date('2026-11-23T12:00:00.000Z');

describe('switchTimeOf', () => {
  it('reads now, in 1 h, in 24 h and a time typed as UTC', () => {
    expect(switchTimeOf({ when: 'now' }, now)).toEqual({ at: '' });
    expect(switchTimeOf({ when: '1h' }, now)).toEqual({ at: '2026-11-23T13:00:00.000Z' });
    expect(switchTimeOf({ when: '24h' }, now)).toEqual({ at: '2026-11-24T12:00:00.000Z' });
    expect(switchTimeOf({ when: 'at', at: '2026-11-25T09:30' }, now)).toEqual({
      at: '2026-11-25T09:30:00.000Z',
    });
  });

  it('reads a time typed as the other time fields take it (YYYY-MM-DD HH:MM, UTC)', () => {
    expect(switchTimeOf({ when: 'at', at: ' 2026-11-25 09:30 ' }, now)).toEqual({
      at: '2026-11-25T09:30:00.000Z',
    });
    expect(switchTimeOf({ when: 'at', at: '2026-11-30 12:00' }, now)).toEqual({
      at: '2026-11-30T12:00:00.000Z',
    });
    expect(switchTimeOf({ when: 'at', at: '2026-11-23 11:59' }, now)).toEqual({
      error: 'That time has passed: choose a time ahead, or switch now.',
    });
    expect(switchTimeOf({ when: 'at', at: '2026-11-31 10:00' }, now)).toEqual({
      error: expect.stringContaining('in UTC') as string,
    });
  });

  it('refuses no choice, a past time, more than 7 days ahead and garbage, in words', () => {
    for (const body of [
      {},
      { when: ['now'] },
      { when: 'at', at: '2026-11-23T11:59' },
      { when: 'at', at: '2026-11-30T12:01' },
      { when: 'at', at: '2026-11-30 12:01' },
      { when: 'at', at: 'tomorrow' },
      { when: 'at' },
    ]) {
      expect(switchTimeOf(body, now)).toEqual({ error: expect.any(String) as string });
    }
  });
});

describe('recoverySinceOf', () => {
  it('reads the preview form (UTC wall clock) and the confirm form (RFC 3339)', () => {
    expect(recoverySinceOf('2026-11-20T14:00', now)).toEqual({
      since: new Date('2026-11-20T14:00:00.000Z'),
    });
    expect(recoverySinceOf('2026-11-20T14:00:00.000Z', now)).toEqual({
      since: new Date('2026-11-20T14:00:00.000Z'),
    });
  });

  it('refuses a time ahead, an impossible date and anything else', () => {
    for (const v of ['2026-11-23T12:01', '2026-02-30T10:00', '', 'x', ['2026-11-20T14:00'], 7]) {
      expect(recoverySinceOf(v, now)).toEqual({ error: expect.any(String) as string });
    }
  });
});
