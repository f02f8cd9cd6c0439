import type { ListRecordsPageResponse } from '@brand/proto/records/v1';
import type { RecordsApi } from '../clients/recordsClient';
import type { Identity } from '../auth/identity';
import { listPage, pageText, pageTextLiteral, takeData } from './listPage';

const IDENTITY: Identity = {
  keyId: 'key_1',
  brandId: 'br_1',
  tier: 'enterprise',
  permissions: new Set(),
};

/** A records client whose one page is `response`, as the page stream resolves it. */
function recordsAnswering(response: ListRecordsPageResponse): RecordsApi {
  return {
    listRecordsPage: () => Promise.resolve(response),
  } as unknown as RecordsApi;
}

function pageResponse(json: string, nextCursor?: string): ListRecordsPageResponse {
  // as gRPC hands it over: a view into a larger message buffer
  const message = Buffer.from(`xx${json}yy`);
  return {
    data_json: new Uint8Array(message.buffer, message.byteOffset + 2, Buffer.byteLength(json)),
    count: 1,
    next_cursor: nextCursor,
    change_version: undefined,
  };
}

describe('listPage', () => {
  it('answers the envelope around the records bytes, and the response keeps no bytes', async () => {
    const response = pageResponse('[{"id":"sub_1"}]', 'c1');
    const page = await listPage(recordsAnswering(response), IDENTITY, 'submissions', {}, 'req_1');
    expect(response.data_json.length).toBe(0);
    const data = takeData(page);
    expect(`${page.head}${data.toString()}${page.tail}`).toBe(
      '{"resource":"submissions","count":1,"data":[{"id":"sub_1"}],"next_cursor":"c1"}',
    );
  });

  it('takeData hands the bytes over once: the page keeps none', async () => {
    const response = pageResponse('[{"id":"sub_2"}]');
    const page = await listPage(recordsAnswering(response), IDENTITY, 'submissions', {}, 'req_2');
    const data = takeData(page);
    expect(data.toString()).toBe('[{"id":"sub_2"}]');
    expect(page.data.length).toBe(0);
    expect(takeData(page).length).toBe(0);
  });

  it('pageText is the page JSON from its head, bytes and tail', async () => {
    const response = pageResponse('[{"id":"sub_3","t":"é"}]');
    const page = await listPage(recordsAnswering(response), IDENTITY, 'payouts', {}, 'req_3');
    expect(JSON.parse(pageText(page, takeData(page)))).toEqual({
      resource: 'payouts',
      count: 1,
      data: [{ id: 'sub_3', t: 'é' }],
    });
  });

  it('an empty page is an empty array', async () => {
    const response = { ...pageResponse('[]'), data_json: new Uint8Array(0), count: 0 };
    const page = await listPage(recordsAnswering(response), IDENTITY, 'links', {}, 'req_4');
    expect(takeData(page).toString()).toBe('[]');
  });
});

describe('pageTextLiteral', () => {
  const CONTROL = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('');
  const TRICKY = [
    '',
    'plain',
    'quote " and backslash \\ and slash /',
    '\\"\\\\"',
    CONTROL,
    '\u007f\u0080\u00ff é ü ß',
    'line\u2028separator\u2029paragraph',
    'astral 😀 𝄞 and combining é',
    'lone \ud800 and \udfff surrogates',
    '</script><!--',
    'x'.repeat(5000),
    '{"json":"inside","a":[1,2]}',
  ];

  it('is byte for byte the UTF-8 of JSON.stringify of the page text, for every kind of character', () => {
    for (const value of TRICKY) {
      const data = Buffer.from(
        JSON.stringify([{ id: value, title: value, n: 1 }, { tags: [value, null] }]),
      );
      for (const tail of ['}', `,"next_cursor":${JSON.stringify(`c_${value.slice(0, 40)}é`)}}`]) {
        const page = {
          resource: 'campaigns' as const,
          count: 2,
          head: '{"resource":"campaigns","count":2,"data":',
          data,
          tail,
        };
        const expected = Buffer.from(JSON.stringify(pageText(page, data)));
        expect(pageTextLiteral(page, data).equals(expected)).toBe(true);
      }
    }
  });

  it('parses back to the page text', () => {
    const data = Buffer.from(JSON.stringify([{ t: 'é "q" \\ 😀' }]));
    const page = {
      resource: 'links' as const,
      count: 1,
      head: '{"resource":"links","count":1,"data":',
      data,
      tail: '}',
    };
    expect(JSON.parse(pageTextLiteral(page, data).toString('utf8'))).toBe(pageText(page, data));
  });
});
