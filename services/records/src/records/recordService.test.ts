import type { Pool } from '@brand/shared/db';
import { CursorCodec } from './cursor';
import { listRecordsJson, type ListRequest } from './recordService';

// A withdrawn page (pageStreams.ts sets its flag when the caller's time passed, it cancelled
// or its stream broke) starts no further query. The pool here only records what was asked of
// it; what the queries return is covered against PostgreSQL in test/integration.

const request: ListRequest = {
  brandId: 'br_AAAAAAAAAAAAAAAAAAAA',
  resource: 'submissions',
  limit: 2,
  cursor: undefined,
  since: undefined,
  withChangeVersion: true,
};

/** A pool answering every query with `rows`, calling `onQuery` with each statement's name. */
function recordingPool(onQuery: (name: string) => void): { pool: Pool; names: string[] } {
  const names: string[] = [];
  const pool = {
    query: (config: { name: string }) => {
      names.push(config.name);
      onQuery(config.name);
      return Promise.resolve({
        rows: config.name === 'records_change_version' ? [{ version: '7' }] : [],
      });
    },
  } as unknown as Pool;
  return { pool, names };
}

const cursors = new CursorCodec('cursor-secret-for-unit-tests-0123456789');

describe('listRecordsJson with a page signal', () => {
  it('runs both queries while the page is wanted', async () => {
    const { pool, names } = recordingPool(() => undefined);
    const page = await listRecordsJson({ pool, cursors, signal: { aborted: false } }, request);
    expect(page).toMatchObject({ json: '[]', count: 0, changeVersion: '7' });
    expect(names).toEqual(['records_change_version', expect.stringMatching(/^records_page_/)]);
  });

  it('starts no query once the page was withdrawn', async () => {
    const { pool, names } = recordingPool(() => undefined);
    await expect(
      listRecordsJson({ pool, cursors, signal: { aborted: true } }, request),
    ).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(names).toEqual([]);
  });

  it('stops between the change version and the page when withdrawn in between', async () => {
    const signal = { aborted: false };
    const { pool, names } = recordingPool(() => {
      signal.aborted = true; // the caller goes away while the first query runs
    });
    await expect(listRecordsJson({ pool, cursors, signal }, request)).rejects.toMatchObject({
      code: 'service_unavailable',
    });
    expect(names).toEqual(['records_change_version']);
  });
});
