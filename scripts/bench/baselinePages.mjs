// B0's page: its select lists, keyset statements, record lookups and signed cursors, shared by B0
// (baselineMonolith.mjs) and the bare split's back (leanSplit/back.mjs), so both serve the
// same rows, bytes and cursors.
import { createHmac, timingSafeEqual } from 'node:crypto';

const ts = (c) => `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ${c}`;
const day = (c) => `to_char(${c}, 'YYYY-MM-DD') as ${c}`;
const int = (c) => `${c}::float8 as ${c}`; // bigint arrives as a string from pg
/** Each resource's table and its public fields in wire order (the API's field order). */
export const SELECT_LISTS = {
  campaigns: `id, title, type, status, ${int('budget_amount')}, ${int('spent_amount')}, currency,
    platforms, ${day('starts_on')}, ${day('ends_on')}, ${ts('created_at')}, ${ts('updated_at')},
    ${ts('settled_at')}`,
  submissions: `id, campaign_id, creator_handle, platform, content_url, status, rejection_reason,
    ${int('views')}, ${ts('created_at')}, ${ts('updated_at')}, ${ts('reviewed_at')}`,
  payouts: `id, campaign_id, submission_id, creator_handle, ${int('amount')}, currency, method,
    status, failure_reason, ${ts('created_at')}, ${ts('updated_at')}, ${ts('paid_at')}`,
  deposits: `id, campaign_id, ${int('amount')}, currency, method, status, reference,
    ${ts('created_at')}, ${ts('updated_at')}, ${ts('confirmed_at')}`,
  conversions: `id, campaign_id, link_id, event, ${int('value_amount')}, currency, order_reference,
    ${ts('occurred_at')}, ${ts('created_at')}`,
  links: `id, campaign_id, creator_handle, destination_url, short_url, status, ${int('clicks')},
    ${int('conversions')}, ${ts('created_at')}, ${ts('updated_at')}`,
};

/**
 * The first page and the page after a cursor, per resource (the table is named as the
 * resource): `{ first, after }` SQL texts, parameters $1 brand, $2 limit, $3 $4 the cursor's
 * created_at and id.
 */
export const KEYSET_QUERIES = Object.fromEntries(
  Object.entries(SELECT_LISTS).map(([t, list]) => {
    const select = `select ${list} from ${t} where ${t}.brand_id = $1`;
    const order = `order by ${t}.created_at desc, ${t}.id desc limit $2`;
    return [
      t,
      {
        first: `${select} ${order}`,
        after: `${select} and (${t}.created_at, ${t}.id) < ($3::timestamptz, $4::text) ${order}`,
      },
    ];
  }),
);

/**
 * One record by id, per resource (issue 44): its select list, by brand and id (parameters $1
 * brand, $2 id), as a brand's engineer would look a record up for one tenant.
 */
export const RECORD_QUERIES = Object.fromEntries(
  Object.entries(SELECT_LISTS).map(([t, list]) => [
    t,
    `select ${list} from ${t} where ${t}.brand_id = $1 and ${t}.id = $2`,
  ]),
);

/** B0's cursors: the last row's created_at and id, HMAC-SHA256-signed, bound to `binding`. */
export function cursorCodec(secret) {
  const mac = (binding, body) =>
    createHmac('sha256', secret).update(`${binding}.${body}`).digest('base64url');
  return {
    encode(binding, row) {
      const json = JSON.stringify({ t: row.created_at, i: row.id });
      const body = Buffer.from(json).toString('base64url');
      return `${body}.${mac(binding, body)}`;
    },
    /** The cursor's { t, i }, or undefined when it is not one of ours for `binding`. */
    decode(binding, cursor) {
      const [body, tag] = String(cursor).split('.');
      if (!body || !tag) return undefined;
      const a = Buffer.from(tag);
      const b = Buffer.from(mac(binding, body));
      if (a.length !== b.length || !timingSafeEqual(a, b)) return undefined;
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    },
  };
}
