import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { addStream, updateStream } from '../../src/streams/streamService';
import { selectStream } from '../../src/streams/streamRepo';
import {
  datadogStream,
  DD_KEY,
  newBrandId,
  OWNER,
  streamDeps,
} from '../support/auditStreamFixtures';

// A stream's save (updateStream) against the database, with a resolver the test controls. A
// hostile review (2026-11-30): the console's settings form sends every field back, the stored
// URL included, so a Datadog stream's new site was overridden by its old intake URL (the stream
// never moved), and every save, a rename too, resolved the destination again: a DNS blip
// refused a rename. The API and brandctl may send the unchanged URL too.

let db: TestDatabase;
/** Hostnames looked up, in order; `dnsDown` makes every lookup fail as a DNS outage does. */
const lookups: string[] = [];
let dnsDown = false;

const deps = () =>
  streamDeps(db.pool, {
    resolve: (hostname) => {
      lookups.push(hostname);
      return dnsDown
        ? Promise.reject(
            Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}`), { code: 'EAI_AGAIN' }),
          )
        : Promise.resolve(['93.184.216.34']);
    },
  });

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());
beforeEach(() => {
  lookups.length = 0;
  dnsDown = false;
});

const changes = async (streamId: string): Promise<string[]> =>
  (
    await db.pool.query<{ summary: string }>(
      `select summary from activity where subject_id = $1 and action = 'audit_stream.changed'
       order by created_at`,
      [streamId],
    )
  ).rows.map((r) => r.summary);

describe('saving a stream', () => {
  it("moves a Datadog stream to the new site's intake when the form sends the stored URL back", async () => {
    const d = deps();
    const stream = await datadogStream(d);
    expect(stream.url).toBe('https://http-intake.logs.datadoghq.eu/api/v2/logs');
    // as the console's form posts it: every field, the stored URL included
    const form = { label: stream.label, url: stream.url, splunkIndex: '' };
    // a new host: the API key is still asked for again
    await expect(
      updateStream(d, stream, { ...form, datadogSite: 'datadoghq.com' }, OWNER),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/^token: give the Datadog API key again/) as unknown,
    });
    const moved = await updateStream(
      d,
      stream,
      { ...form, datadogSite: 'datadoghq.com', token: DD_KEY },
      OWNER,
    );
    expect(moved.url).toBe('https://http-intake.logs.datadoghq.com/api/v2/logs');
    expect(moved.options).toEqual({ datadog_site: 'datadoghq.com' });
    expect((await selectStream(db.pool, stream.id, 30 * 86_400_000))!.url).toBe(moved.url);
    expect(lookups.at(-1)).toBe('http-intake.logs.datadoghq.com');
  });

  it('does not resolve the destination again when nothing about it changes, so a rename survives a DNS outage', async () => {
    const d = deps();
    const stream = await datadogStream(d);
    lookups.length = 0;
    dnsDown = true;
    // the console's form: the stored URL, site and an empty Splunk index, a new name
    const renamed = await updateStream(
      d,
      stream,
      { label: 'Datadog (EU)', url: stream.url, datadogSite: 'datadoghq.eu', splunkIndex: '' },
      OWNER,
    );
    expect(renamed.label).toBe('Datadog (EU)');
    expect(renamed.url).toBe(stream.url);
    // a new API key alone changes nothing about where the stream sends
    await updateStream(d, renamed, { url: stream.url, token: 'a-new-api-key' }, OWNER);
    expect(lookups).toEqual([]);
    expect(await changes(stream.id)).toEqual([
      'Datadog (EU): renamed from Datadog',
      'Datadog (EU): API key replaced',
    ]);
    // a real change of destination is checked, and refused while the name does not resolve
    await expect(
      updateStream(
        d,
        renamed,
        { url: 'https://intake.example.net/api/v2/logs', token: DD_KEY },
        OWNER,
      ),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    expect(lookups).toEqual(['intake.example.net']);
  });

  it('keeps a Splunk index change without a lookup, and a URL written differently but equal is no change', async () => {
    const d = deps();
    const { stream } = await addStream(
      d,
      {
        brandId: newBrandId(),
        kind: 'splunk_hec',
        label: 'Splunk',
        url: 'https://splunk.example.com:8088/services/collector/event',
        token: 'hec-token',
        datadogSite: '',
        splunkIndex: '',
        actorEmail: OWNER.email,
      },
      OWNER,
    );
    lookups.length = 0;
    dnsDown = true;
    const indexed = await updateStream(
      d,
      stream,
      { url: 'https://SPLUNK.example.com:8088/services/collector/event', splunkIndex: 'audit' },
      OWNER,
    );
    expect(indexed.options).toEqual({ splunk_index: 'audit' });
    expect(indexed.url).toBe(stream.url);
    expect(lookups).toEqual([]);
    expect(await changes(stream.id)).toEqual(['Splunk: options changed']);
  });
});
