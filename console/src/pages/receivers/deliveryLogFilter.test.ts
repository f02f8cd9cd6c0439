import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { logFilterOf, logQuery, logRequest } from './deliveryLogFilter';

describe("the delivery log filter of a receiver page or the brand's", () => {
  it('takes a state, an event type, a UTC range, an id and a cursor', () => {
    // times as typed: with a space or a T, a day alone
    expect(logFilterOf({ since: '2026-11-20 14:00', until: '2026-11-21' }).refusal).toBeUndefined();
    const { filter, refusal } = logFilterOf({
      state: 'waiting',
      event: 'payout.paid',
      since: '2026-11-20T14:00',
      until: '2026-11-21T09:30',
      find: 'evt_abc123',
      cursor: 'WyIyMDI2Il0',
    });
    expect(refusal).toBeUndefined();
    expect(logRequest({ receiverId: 'rcv_1' }, filter, 50)).toMatchObject({
      receiver_id: 'rcv_1',
      brand_id: '',
      limit: 50,
      status: DeliveryStatus.DELIVERY_STATUS_PENDING,
      event_type: EVENT_TYPES.toProto('payout.paid'),
      since: '2026-11-20T14:00:00.000Z',
      until: '2026-11-21T09:30:00.000Z',
      event_id: 'evt_abc123',
      record_id: '',
      cursor: 'WyIyMDI2Il0',
    });
  });

  it('reads an id that is not an event id as a record id', () => {
    const { filter } = logFilterOf({ find: ' sub_9XyZ ' });
    expect(logRequest({ brandId: 'br_1' }, filter, 50)).toMatchObject({
      receiver_id: '',
      brand_id: 'br_1',
      event_id: '',
      record_id: 'sub_9XyZ',
    });
  });

  it('ignores empty fields: none is the newest page of everything', () => {
    expect(logFilterOf({ state: '', event: '', since: '', find: '  ' })).toEqual({ filter: {} });
  });

  it.each([
    [{ state: 'lost' }, /Choose a state/],
    [{ event: 'invoice.paid' }, /Choose an event type/],
    [{ since: 'yesterday' }, /"From" as a UTC time/],
    [{ until: '2026-02-30T10:00' }, /"Before" as a UTC time/],
    [{ since: '11/20/2026, 02:00 PM' }, /"From" as a UTC time/],
    [{ since: '2026-11-21T10:00', until: '2026-11-21T10:00' }, /later than "From"/],
    [{ find: '<script>' }, /Find takes an event id/],
    [{ cursor: 'not a cursor' }, /start again from the newest/],
    [{ state: ['failed', 'waiting'] }, /state: give it once/],
  ])('says what is wrong with %p, and drops the cursor', (query, message) => {
    const { filter, refusal } = logFilterOf({ cursor: 'abc', ...query });
    expect(refusal?.code).toBe('validation_failed');
    expect(refusal?.message).toMatch(message);
    expect(filter.cursor).toBeUndefined();
  });

  it('keeps what was typed for the form, the refused values too, as Events and Activity do', () => {
    const typed = { state: 'failed', since: 'yesterday', until: '2026-11-21', find: 'abc' };
    const { filter, refusal } = logFilterOf({ ...typed, cursor: 'c1' });
    expect(filter).toEqual(typed);
    expect(refusal?.message).toBe(
      'Enter "From" as a UTC time, for example 2026-11-20 14:00, or a day. Find takes an event id (evt_...) or a record id (sub_..., po_...).',
    );
    // given twice: the first value typed is kept, as queryFields' other pages do
    expect(logFilterOf({ find: ['evt_1', 'evt_2'] }).filter).toEqual({ find: 'evt_1' });
  });

  it('keeps the filter in the next page link', () => {
    expect(logQuery({ state: 'failed', find: 'evt_1', cursor: 'c1' })).toBe(
      '?state=failed&find=evt_1&cursor=c1',
    );
    expect(logQuery({})).toBe('');
  });
});
