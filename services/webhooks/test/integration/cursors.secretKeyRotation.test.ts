// A cursor a client holds lives through a rotation of the secrets key. The events feed's and the
// audit log's newest-first cursors are MACed with keys derived from WEBHOOK_SECRET_KEY, and the
// service derived them from that key alone: a cursor issued before a rotation was 400
// invalid_cursor after it, and during the rollout pods of the two steps refused each other's
// cursors (a platform review, 2026-11-30). Now WEBHOOK_SECRET_KEYS_PREVIOUS verifies too, so the
// procedure of docs/operating.md (the new key first added as a previous one, then made current)
// keeps every cursor valid. Two real webhooks processes on one database, with the keys of two
// steps of that procedure, answer each other's cursors; a process without the issuing key
// refuses them.
import { randomBytes } from 'node:crypto';
import { EventsFeedServiceClient, ListFeedEventsRequest } from '@brand/proto/webhooks/v1';
import { AuditLogServiceClient, ListAuditLogRequest } from '@brand/proto/webhooks/v1/audit';
import { connectClient, createCaller } from '@brand/shared/grpc';
import {
  createTestDatabase,
  createTopic,
  deleteTopic,
  startWebhooks,
  stopAllServices,
  uniqueConsumerGroup,
  uniqueTopic,
  TEST_INTERNAL_TOKEN,
  type TestDatabase,
  type WebhooksProcess,
} from '@brand/testkit';

const BRAND = 'br_cursorkeys';
const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('base64');
const OTHER = randomBytes(32).toString('base64');

let db: TestDatabase;
const topic = uniqueTopic('cursor-keys');

async function webhooksWith(current: string, previous: string[]): Promise<WebhooksProcess> {
  return startWebhooks({
    databaseUrl: db.url,
    topic,
    groupId: uniqueConsumerGroup('cursor-keys'),
    env: {
      WEBHOOKS_ROLES: 'admin',
      WEBHOOK_SECRET_KEY: current,
      WEBHOOK_SECRET_KEYS_PREVIOUS: previous.join(','),
    },
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  await createTopic(topic);
  await db.pool.query(
    `insert into webhooks.events (id, brand_id, type, created_at, object_json, record_id, feed_seq)
     select 'evt_ck' || lpad(g::text, 4, '0'), $1, 'payout.paid', now() - (20 - g) * interval '1 minute',
            format('{"resource":"payouts","id":"po_%s"}', g), 'po_' || g, g
     from generate_series(1, 20) as g`,
    [BRAND],
  );
  await db.pool.query(
    `insert into webhooks.event_feed_heads (brand_id, last_seq) values ($1, 20)`,
    [BRAND],
  );
  await db.pool.query(
    `insert into webhooks.audit_entries (brand_id, seq, id, kind, created_at, entry_json)
     select $1, g, 'act_ck' || g, 'activity', now(), '{"id":"act_ck' || g || '"}'
     from generate_series(1, 20) as g`,
    [BRAND],
  );
  await db.pool.query(`insert into webhooks.audit_heads (brand_id, last_seq) values ($1, 20)`, [
    BRAND,
  ]);
}, 60_000);
afterAll(async () => {
  await stopAllServices();
  await db?.close();
  await deleteTopic(topic).catch(() => undefined);
});

/** The feed's and the audit log's callers of `w`, as the gateway calls them. */
function callersOf(w: WebhooksProcess) {
  const feedClient = connectClient(EventsFeedServiceClient, w.address);
  const feed = createCaller(feedClient, { deadlineMs: 10_000, token: TEST_INTERNAL_TOKEN });
  const auditClient = connectClient(AuditLogServiceClient, w.address);
  const audit = createCaller(auditClient, { deadlineMs: 10_000, token: TEST_INTERNAL_TOKEN });
  return {
    feedPage: (cursor: string) =>
      feed(
        'listFeedEvents',
        ListFeedEventsRequest.fromPartial({ brand_id: BRAND, limit: 5, cursor }),
      ),
    auditPage: (cursor: string) =>
      audit('listAuditLog', ListAuditLogRequest.fromPartial({ brand_id: BRAND, limit: 5, cursor })),
    close: () => {
      feedClient.close();
      auditClient.close();
    },
  };
}

/** The first page's next_cursor of the feed and of the audit log, as `w` issues them. */
async function cursorsOf(w: WebhooksProcess): Promise<{ feed: string; audit: string }> {
  const c = callersOf(w);
  try {
    const [feed, log] = await Promise.all([c.feedPage(''), c.auditPage('')]);
    return { feed: feed.next_cursor, audit: log.next_cursor };
  } finally {
    c.close();
  }
}

const codeOf = (err: unknown): unknown => (err as { code?: unknown }).code;
const firstId = (json: string | undefined): unknown =>
  (JSON.parse(json ?? '{}') as { id?: unknown }).id;

/** What `w` answers to those cursors: the next pages' first ids, or the error's code. */
async function follow(w: WebhooksProcess, cursors: { feed: string; audit: string }) {
  const c = callersOf(w);
  try {
    const [feed, audit] = await Promise.all([
      c.feedPage(cursors.feed).then((r) => firstId(r.events_json[0]), codeOf),
      c.auditPage(cursors.audit).then((r) => firstId(r.entries_json[0]), codeOf),
    ]);
    return { feed, audit };
  } finally {
    c.close();
  }
}

describe('cursors through a rotation of WEBHOOK_SECRET_KEY', () => {
  it('are taken by the pods of every step of the procedure, and refused without the key', async () => {
    const before = await webhooksWith(OLD, []); // before the rotation
    const added = await webhooksWith(OLD, [NEW]); // step 1: the new key added as a previous one
    const swapped = await webhooksWith(NEW, [OLD]); // step 2: the new key current
    const after = await webhooksWith(NEW, []); // step 3: the old one dropped
    const stranger = await webhooksWith(OTHER, []);

    const issuedBefore = await cursorsOf(before);
    const issuedSwapped = await cursorsOf(swapped);
    const next = { feed: 'evt_ck0015', audit: 'act_ck15' };

    // a client's cursor from before the rotation, on the pods of steps 1 and 2
    expect(await follow(added, issuedBefore)).toEqual(next);
    expect(await follow(swapped, issuedBefore)).toEqual(next);
    // while step 2 rolls out, a pod of step 1 takes a cursor a pod of step 2 issued
    expect(await follow(added, issuedSwapped)).toEqual(next);
    expect(await follow(after, issuedSwapped)).toEqual(next);
    // and without the issuing key a cursor is refused, as ever
    expect(await follow(after, issuedBefore)).toEqual({
      feed: 'invalid_cursor',
      audit: 'invalid_cursor',
    });
    expect(await follow(stranger, issuedSwapped)).toEqual({
      feed: 'invalid_cursor',
      audit: 'invalid_cursor',
    });
  }, 120_000);
});
