import { randomBytes } from 'node:crypto';
import { SecretBox } from '@brand/shared/secrets';
import {
  createTestDatabase,
  outcomeOf,
  queueBehindRowLock,
  type TestDatabase,
} from '@brand/testkit';
import { selectStream } from '../../src/streams/streamRepo';
import { addStream, updateStream, type StreamDeps } from '../../src/streams/streamService';

// Two saves of one stream at the same moment (a hostile review of lost updates, 2026-12-01).
// updateStream decides against the stream as its handler read it, then writes: a save that
// changed the Splunk index alone wrote the destination back as it had read it, so an owner's
// move to a new host (with its new HEC token) committing in between was undone, and the token
// given for the new host went to the old one (the rule of 2026-11-29: a stored token goes to no
// host but the one it was given for). A save that replaced the token alone raced a move the same
// way. A save now writes a destination or a token only onto the destination it read; one that
// changed meanwhile is refused (precondition_failed, "reload"), and nothing of it is written.
// Each case holds the stream's row in a transaction of the test's own, queues the two saves
// behind it, read before either writes, and lets them go in order.

const OWNER = { memberId: 'mem_owner', email: 'owner@example.com' };
const HEC_TOKEN = '5c1e7a52-3c1b-4a7e-9d2f-0b6f1c2d3e4f';
const NEW_HOST_TOKEN = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
let db: TestDatabase;
let deps: StreamDeps;

beforeAll(async () => {
  db = await createTestDatabase();
  deps = {
    pool: db.pool,
    box: new SecretBox(randomBytes(32).toString('base64')),
    resolve: () => Promise.resolve(['93.184.216.34']),
    allowLoopback: false,
    maxPerBrand: 3,
    historyRetentionMs: 30 * 86_400_000,
  };
});
afterAll(() => db?.close());

async function splunkStream() {
  const { stream } = await addStream(
    deps,
    {
      brandId: `br_${randomBytes(6).toString('hex')}`,
      kind: 'splunk_hec',
      label: 'Splunk',
      url: 'https://hec.old-siem.example/services/collector/event',
      token: HEC_TOKEN,
      datadogSite: '',
      splunkIndex: 'brand_audit',
      actorEmail: OWNER.email,
    },
    OWNER,
  );
  return stream;
}

/** The two saves, each read before either writes, queued behind the stream's row in order. */
const atOnce = (streamId: string, first: () => Promise<unknown>, second: () => Promise<unknown>) =>
  queueBehindRowLock(
    db.pool,
    { sql: 'select 1 from receivers where id = $1 for update', params: [streamId] },
    [outcomeOf(first), outcomeOf(second)] as const,
  );

const tokenOf = async (id: string) => {
  const r = await db.pool.query<{ ciphertext: Buffer; keyId: string }>(
    'select secret_ciphertext as ciphertext, secret_key_id as "keyId" from receivers where id = $1',
    [id],
  );
  return deps.box.open(r.rows[0]!, id);
};

const NEW_URL = 'https://hec.new-siem.example/services/collector/event';

describe('two saves of one stream at once', () => {
  it('a change of the index alone does not undo a move to a new host', async () => {
    const read = await splunkStream();
    const [move, index] = await atOnce(
      read.id,
      () => updateStream(deps, read, { url: NEW_URL, token: NEW_HOST_TOKEN }, OWNER),
      () => updateStream(deps, read, { splunkIndex: 'security' }, OWNER),
    );
    expect(move).toEqual({ ok: true });
    expect(index).toEqual({ ok: false, code: 'precondition_failed' });
    const now = (await selectStream(db.pool, read.id, deps.historyRetentionMs))!;
    expect(now.url).toBe(NEW_URL);
    expect(now.options).toEqual({ splunk_index: 'brand_audit' });
    expect(await tokenOf(read.id)).toBe(NEW_HOST_TOKEN);
  });

  it('a token given for the old host does not land on the new one', async () => {
    const read = await splunkStream();
    const [move, token] = await atOnce(
      read.id,
      () => updateStream(deps, read, { url: NEW_URL, token: NEW_HOST_TOKEN }, OWNER),
      () => updateStream(deps, read, { token: 'ffffffff-0000-4000-8000-000000000000' }, OWNER),
    );
    expect(move).toEqual({ ok: true });
    expect(token).toEqual({ ok: false, code: 'precondition_failed' });
    expect(await tokenOf(read.id)).toBe(NEW_HOST_TOKEN);
  });

  it('a rename alone still goes through beside a move', async () => {
    const read = await splunkStream();
    const [move, rename] = await atOnce(
      read.id,
      () => updateStream(deps, read, { url: NEW_URL, token: NEW_HOST_TOKEN }, OWNER),
      () => updateStream(deps, read, { label: 'Splunk (security)' }, OWNER),
    );
    expect([move, rename]).toEqual([{ ok: true }, { ok: true }]);
    const now = (await selectStream(db.pool, read.id, deps.historyRetentionMs))!;
    expect([now.url, now.label]).toEqual([NEW_URL, 'Splunk (security)']);
  });
});
