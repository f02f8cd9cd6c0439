import { ApiError } from '../errors/brandRecordsError';
import { AuditLogResource } from '../auditLog/auditLogResource';
import { EventsResource } from '../events/eventsResource';
import { FROM_OLDEST } from '../events/followCheckpoint';
import { CampaignPlans } from '../plans/campaignPlans';
import { RecordsResource } from '../records/recordsResource';
import { pageBody, type StubAnswer } from '../testing/fetchStub';
import { testTransport } from '../testing/testTransport';

/** The rejection of `promise`, which must be an ApiError `invalid_response`. */
async function invalidResponse(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe('invalid_response');
  expect((error as ApiError).status).toBe(200);
  return error as ApiError;
}

const answering = (body: unknown): StubAnswer[] => [{ status: 200, body }];
const ok200 = (body: unknown) => testTransport(answering(body)).transport;

const BAD_PAGES: Array<[string, unknown]> = [
  ['data a string', { resource: 'campaigns', count: 3, data: 'notarray' }],
  ['null', null],
  ['an array', [{ id: 'a' }]],
  ['a number', 7],
  ['no data', { resource: 'campaigns', count: 0 }],
  ['data with a non-object item', { data: [{ id: 'a' }, 'b'] }],
  ['data with a null item', { data: [null] }],
  ['count not a number', { data: [], count: '0' }],
  ['next_cursor not a string', { data: [], next_cursor: 5 }],
];

describe('2xx bodies of the wrong shape are ApiError invalid_response', () => {
  it.each(BAD_PAGES)('records list: %s', async (_what, body) => {
    await invalidResponse(new RecordsResource(ok200(body), 'campaigns').list());
  });

  it.each(BAD_PAGES)('records all: %s', async (_what, body) => {
    const walk = new RecordsResource(ok200(body), 'campaigns').all();
    await invalidResponse(walk.next());
  });

  it('records poll: a page of the wrong shape (a 304 stays a result)', async () => {
    await invalidResponse(new RecordsResource(ok200({ data: 'x' }), 'links').poll());
    const { transport } = testTransport([{ status: 304 }]);
    await expect(new RecordsResource(transport, 'links').poll({ etag: '"v"' })).resolves.toEqual(
      expect.objectContaining({ notModified: true }),
    );
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['a string', 'sub_1'],
    ['an array', [{ id: 'a' }]],
    ['an object without id', { status: 'approved' }],
    ['an object with a numeric id', { id: 7 }],
  ])('retrieve: %s', async (_what, body) => {
    await invalidResponse(new RecordsResource(ok200(body), 'submissions').retrieve('sub_1'));
  });

  it.each(BAD_PAGES)('events list: %s', async (_what, body) => {
    await invalidResponse(new EventsResource(ok200(body)).list());
  });

  it('events pages read after a position must carry a numeric next_after', async () => {
    const page = { resource: 'events', count: 0, data: [] };
    await invalidResponse(new EventsResource(ok200(page)).list({ after: 3 }));
    await invalidResponse(
      new EventsResource(ok200({ ...page, next_after: '3' })).list({ after: 3 }),
    );
    // without `after` it is not asked for
    await expect(new EventsResource(ok200(page)).list()).resolves.toMatchObject({ count: 0 });
  });

  it('events items must be objects with a string id (the follower stores it)', async () => {
    const body = { data: [{ type: 'payout.paid' }], next_after: 1 };
    await invalidResponse(new EventsResource(ok200(body)).list({ after: 0 }));
  });

  it('follow ends with invalid_response instead of handing characters over as events', async () => {
    const onEvent = jest.fn();
    const onCheckpoint = jest.fn();
    const error = await invalidResponse(
      new EventsResource(ok200({ data: 'notarray', next_after: 1 })).follow({
        from: FROM_OLDEST,
        onEvent,
        onCheckpoint,
        intervalMs: 100,
      }),
    );
    expect(error.message).toMatch(/data/);
    expect(onEvent).not.toHaveBeenCalled();
    expect(onCheckpoint).not.toHaveBeenCalled();
  });

  it.each(BAD_PAGES)('audit log list: %s', async (_what, body) => {
    await invalidResponse(new AuditLogResource(ok200(body)).list());
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['a string', 'pln_1'],
    ['an object without id', { status: 'pending' }],
  ])('campaign plan: %s', async (_what, body) => {
    await invalidResponse(
      new CampaignPlans(ok200(body)).prepare({
        title: 't',
        goal: 'g',
        campaign_type: 'ugc',
        planned_for: '2027-06-01',
        review_on: '2027-05-15',
        planning_budget: '1.00',
      }),
    );
  });

  it('is not retried: the same body would come again', async () => {
    const { transport, requests } = testTransport(answering({ data: 'x' }));
    await invalidResponse(new RecordsResource(transport, 'payouts').list());
    expect(requests).toHaveLength(1);
  });

  it('still accepts well-formed pages, records and plans', async () => {
    await expect(
      new RecordsResource(ok200(pageBody('payouts', ['a'], 'c')), 'payouts').list(),
    ).resolves.toMatchObject({ count: 1, next_cursor: 'c' });
    await expect(
      new RecordsResource(ok200({ id: 'po_1', status: 'paid' }), 'payouts').retrieve('po_1'),
    ).resolves.toMatchObject({ id: 'po_1' });
  });
});
