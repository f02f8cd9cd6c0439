import { z } from 'zod';
import type { Auditor } from '@brand/shared/activity';
import { authorize, type Actor, type ConsoleAction } from '@brand/shared/console';
import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { newId, randomBase62 } from '@brand/shared/ids';
import type { SecretBox } from '@brand/shared/secrets';
import { checkReceiverUrl, type Resolver } from '../egress/urlPolicy';
import { recordReceiverActivity as record } from '../receivers/receiverActivity';
import { generateSigningSecret } from '../receivers/newSigningSecret';
// one line, as a receiver's label: shown in pages, mails and the activity log
import { label } from '../receivers/receiverLabel';
import {
  deleteReceiver,
  failPendingDeliveries,
  STREAM_DISABLED_BY_OWNER,
  lockBrand,
  updateReceiver,
} from '../receivers/receiverRepo';
import { lockReceiverForTest } from '../log/deliveryRepo';
import { boundedPendingTests } from '../log/deliveryService';
import { dropRunCap, insertBatch } from './batchRepo';
import {
  DATADOG_SITES,
  datadogIntakeUrl,
  KIND_WORDS,
  STREAM_KINDS,
  type StreamKind,
  type StreamOptions,
} from '@brand/shared/webhooks';
import {
  countStreams,
  insertStream,
  selectStream,
  selectStreams,
  updateStreamDestination,
  type StreamRow,
} from './streamRepo';
import { urlInTrail } from '../audit/urlInTrail';

export interface StreamDeps {
  pool: Pool;
  box: SecretBox;
  resolve: Resolver;
  /** WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: the local-only test setting, as for receivers. */
  allowLoopback: boolean;
  /** AUDIT_STREAMS_PER_BRAND. */
  maxPerBrand: number;
  /** DELIVERY_HISTORY_RETENTION_MS: a set-aside entry is sent again only while its week is kept. */
  historyRetentionMs: number;
}

const brandId = z.string().regex(/^br_[A-Za-z0-9]{1,64}$/, 'must be a brand id (br_...)');
const streamId = z
  .string()
  .regex(/^aus_[A-Za-z0-9]{1,64}$/, 'must be an audit stream id (aus_...)');
/** A HEC token or a Datadog API key as given: printable, no spaces. Sealed, never shown again. */
const token = z
  .string()
  .trim()
  .max(512)
  .regex(/^[\x21-\x7e]*$/, 'must be printable characters without spaces');
const site = z.enum(DATADOG_SITES, { message: `must be one of ${DATADOG_SITES.join(', ')}` });
/** Splunk's index names: lower case, digits, _ and -, not starting with _ or - (no _internal). */
const splunkIndex = z
  .string()
  .trim()
  .regex(/^([a-z0-9][a-z0-9_-]{0,79})?$/, 'must be a Splunk index name (a-z, 0-9, _ and -)');

const fieldError = (field: string, message: string) =>
  new AppError('validation_failed', `${field}: ${message}`, { details: [{ field, message }] });

const notFound = (id: string) => () => new AppError('not_found', `No audit stream ${id}.`);

/**
 * The stream, once `actor` may take `action` on it (another brand's stream is not_found); its
 * set-aside entries counted within `historyMs` (DELIVERY_HISTORY_RETENTION_MS).
 */
export async function authorizedStream(
  pool: Pool,
  actor: Actor,
  action: ConsoleAction,
  id: string,
  historyMs: number,
): Promise<StreamRow> {
  parseOrThrow(z.object({ stream_id: streamId }), { stream_id: id });
  const stream = await selectStream(pool, id, historyMs);
  if (!stream) throw notFound(id)();
  authorize(actor, action, stream.brand_id, notFound(id));
  return stream;
}

/** The destination a stream's kind, URL, token and options name, checked (egress policy included). */
async function destination(
  deps: StreamDeps,
  kind: StreamKind,
  given: { url: string; token: string; datadogSite: string; splunkIndex: string },
  /** The stream's stored URL, on a save: kept as it is without resolving it again. */
  stored?: string,
): Promise<{ url: string; options: StreamOptions }> {
  if (kind === 'https' && given.token !== '') {
    throw fieldError('token', 'an HTTPS stream is signed with a secret made for it; give no token');
  }
  if (kind !== 'https' && given.token === '') {
    throw fieldError(
      'token',
      kind === 'splunk_hec' ? 'the HEC token is required' : 'the Datadog API key is required',
    );
  }
  if (kind !== 'datadog' && given.datadogSite !== '')
    throw fieldError('datadog_site', 'is for Datadog streams only');
  if (kind !== 'splunk_hec' && given.splunkIndex !== '')
    throw fieldError('splunk_index', 'is for Splunk HEC streams only');
  const options: StreamOptions = {};
  let raw = given.url;
  if (kind === 'datadog') {
    const chosen = parseOrThrow(z.object({ datadog_site: site }), {
      datadog_site: given.datadogSite || 'datadoghq.com',
    }).datadog_site;
    options.datadog_site = chosen;
    if (raw === '') raw = datadogIntakeUrl(chosen);
  } else if (raw === '') {
    throw fieldError('url', 'is required');
  }
  if (kind === 'splunk_hec' && given.splunkIndex !== '')
    options.splunk_index = parseOrThrow(z.object({ splunk_index: splunkIndex }), {
      splunk_index: given.splunkIndex,
    }).splunk_index;
  // The stored URL passed this check when it was saved; only a new one is resolved (a save that
  // changes a Splunk index alone must not fail while the destination's DNS is away).
  const url =
    stored !== undefined && raw === stored
      ? new URL(stored)
      : await checkReceiverUrl(raw, { allowLoopback: deps.allowLoopback, resolve: deps.resolve });
  const secretParam = [...url.searchParams.keys()].find((name) => CREDENTIAL_PARAM.test(name));
  if (secretParam !== undefined) {
    throw fieldError(
      'url',
      `must not carry a credential (${secretParam}): the URL is shown on pages and in the activity, and streamed; give it as the token`,
    );
  }
  return { url: url.toString(), options };
}

/**
 * Query parameters that hold a credential (Splunk's ?token=, Datadog's ?dd-api-key=, a
 * signature): refused in a destination URL, which is stored, shown and written to the trail in
 * clear, where the token field is sealed and shown as dots (a review of 2026-11-30).
 */
const CREDENTIAL_PARAM = /token|key|secret|passw|auth|sig|credential/i;

const AddInput = z.object({
  brandId,
  kind: z
    .string()
    .pipe(z.enum(STREAM_KINDS, { message: `must be one of ${STREAM_KINDS.join(', ')}` })),
  label,
  url: z.string().trim().max(2048),
  token,
  datadogSite: z.string().trim().max(64),
  splunkIndex: z.string().max(80),
  actorEmail: z.string().trim().max(320),
});

/**
 * Connects a stream (owners): the destination checked now as a receiver's URL is (https to a
 * public address, the host resolved and every address allowed; the local-only test setting
 * admits loopback), the token or API key sealed (AES-256-GCM, bound to the stream's id), or for
 * https a signing secret made and returned once; the brand kept within its streams (a lock
 * serialises concurrent adds). The stream gets every entry stored from now on.
 */
export async function addStream(
  deps: StreamDeps,
  input: z.input<typeof AddInput>,
  audit: Auditor,
): Promise<{ stream: StreamRow; signingSecret: string }> {
  const v = parseOrThrow(AddInput, input);
  const dest = await destination(deps, v.kind, v);
  const id = newId('auditStream');
  const signingSecret = v.kind === 'https' ? generateSigningSecret() : '';
  const sealed = deps.box.seal(v.kind === 'https' ? signingSecret : v.token, id);
  const stream = await withTransaction(deps.pool, async (db) => {
    await lockBrand(db, v.brandId);
    if ((await countStreams(db, v.brandId)) >= deps.maxPerBrand) {
      throw new AppError(
        'audit_stream_limit',
        `Brand ${v.brandId} already has the maximum of ${deps.maxPerBrand} audit streams; remove one first.`,
      );
    }
    const row = await insertStream(db, {
      id,
      brandId: v.brandId,
      kind: v.kind,
      label: v.label,
      url: dest.url,
      options: dest.options,
      ciphertext: sealed.ciphertext,
      keyId: sealed.keyId,
      createdBy: v.actorEmail || audit.email,
    });
    await record(
      db,
      audit,
      row,
      'audit_stream.added',
      `${row.label}: ${KIND_WORDS[row.kind]} to ${urlInTrail(row.url)}`,
    );
    return row;
  });
  return { stream, signingSecret };
}

export async function listStreams(
  pool: Pool,
  brand: string,
  historyMs: number,
): Promise<StreamRow[]> {
  parseOrThrow(z.object({ brand_id: brandId }), { brand_id: brand });
  return selectStreams(pool, brand, historyMs);
}

/** Whether two checked destination URLs name the same scheme, host and port. */
const sameOrigin = (a: string, b: string): boolean => new URL(a).origin === new URL(b).origin;

const UpdateInput = z.object({
  label: label.optional(),
  url: z.string().trim().max(2048).optional(),
  token: token.optional(),
  datadogSite: z.string().trim().max(64).optional(),
  splunkIndex: z.string().max(80).optional(),
  enabled: z.boolean().optional(),
  ifUpdatedAt: z.string().max(64).optional(),
});

/**
 * What of a save is a change. The console's settings form sends every field back (the stored
 * URL, the site, an empty Splunk index) and the API and brandctl may send unchanged values too: a
 * value equal to the stored one is no change (a URL compared as the egress check writes it), so a
 * rename is not a new destination, and a Datadog site changed beside its stored URL moves the
 * stream to the new site's intake (a hostile review, 2026-11-30: the stored URL won, and the
 * stream claimed the new site while it sent to the old).
 */
function changedDestination(
  stream: StreamRow,
  v: { url?: string; datadogSite?: string; splunkIndex?: string },
): { url?: string; datadogSite?: string; splunkIndex?: string } {
  const sameUrl = (given: string): boolean => {
    if (given === stream.url) return true;
    try {
      return new URL(given).toString() === stream.url;
    } catch {
      return false;
    }
  };
  return {
    url: v.url === undefined || sameUrl(v.url) ? undefined : v.url,
    datadogSite:
      v.datadogSite === undefined || v.datadogSite === (stream.options.datadog_site ?? '')
        ? undefined
        : v.datadogSite,
    splunkIndex:
      v.splunkIndex === undefined || v.splunkIndex === (stream.options.splunk_index ?? '')
        ? undefined
        : v.splunkIndex,
  };
}

/**
 * Changes a stream (owners): label, destination (checked again), a new token or API key (the
 * old one overwritten), enabled. Only a destination that changes is checked again (resolved, the
 * egress policy): a rename or a new token goes through while the destination's DNS is away.
 * Disabling fails its run in flight, as for a receiver; enabling clears the failure streak, and
 * the stream goes on where it stopped (its run starts a new round). Recorded as
 * audit_stream.changed, saying what changed, never a token.
 *
 * Given `ifUpdatedAt` (the stream's updated_at as the change was decided on: the console reads the
 * stream, then sends only what the owner changed), the change is written only onto that stream,
 * compared with the stream read here and again under its row's lock at the write; one changed
 * meanwhile is precondition_failed. The console's read is a call before this one: a rename or a
 * move committing between them was replaced unseen, and a token typed for the host the page showed
 * was stored for the one another owner had moved the stream to (a review of lost updates,
 * 2026-12-01).
 */
export async function updateStream(
  deps: StreamDeps,
  stream: StreamRow,
  input: z.input<typeof UpdateInput>,
  audit: Auditor,
): Promise<StreamRow> {
  const v = parseOrThrow(UpdateInput, input);
  if (v.ifUpdatedAt !== undefined && v.ifUpdatedAt !== stream.updated_at) {
    throw changedMeanwhile(stream);
  }
  const changed: string[] = [];
  let dest: { url: string; options: StreamOptions } | undefined;
  const newToken = v.token !== undefined && v.token !== '';
  if (stream.kind === 'https' && newToken)
    throw fieldError('token', 'an HTTPS stream is signed with its own secret; give no token');
  if (stream.kind !== 'https' && v.token !== undefined && !newToken)
    throw fieldError('token', 'must not be empty: give the new token, or leave it out');
  const to = changedDestination(stream, v);
  if (to.url !== undefined || to.datadogSite !== undefined || to.splunkIndex !== undefined) {
    dest = await destination(
      deps,
      stream.kind,
      {
        // a new site without a new URL: the new site's intake
        url: to.url ?? (stream.kind === 'datadog' && to.datadogSite ? '' : stream.url),
        token: stream.kind === 'https' ? '' : 'kept',
        datadogSite:
          stream.kind === 'datadog' ? (to.datadogSite ?? stream.options.datadog_site ?? '') : '',
        splunkIndex:
          stream.kind === 'splunk_hec' ? (to.splunkIndex ?? stream.options.splunk_index ?? '') : '',
      },
      stream.url,
    );
    // A stored token or API key goes to no host but the one it was given for: a new host needs
    // it given again, or whoever can change the URL could have it sent to their own server (a
    // hostile review, 2026-11-29).
    if (stream.kind !== 'https' && !newToken && !sameOrigin(dest.url, stream.url)) {
      throw fieldError(
        'token',
        `give the ${stream.kind === 'datadog' ? 'Datadog API key' : 'HEC token'} again for a new host: the stored one is sent only where it was given`,
      );
    }
    if (dest.url !== stream.url) changed.push(`sent to ${urlInTrail(dest.url)}`);
    if (JSON.stringify(dest.options) !== JSON.stringify(stream.options))
      changed.push('options changed');
  }
  const sealed =
    v.token !== undefined && v.token !== '' ? deps.box.seal(v.token, stream.id) : undefined;
  if (sealed) changed.push(stream.kind === 'datadog' ? 'API key replaced' : 'token replaced');
  if (v.label !== undefined && v.label !== stream.label)
    changed.push(`renamed from ${stream.label}`);
  if (v.enabled !== undefined && v.enabled !== stream.enabled)
    changed.push(v.enabled ? 'enabled' : 'disabled');
  await withTransaction(deps.pool, async (db) => {
    // A new destination or token is written only onto the destination it was decided on: a save
    // that committed meanwhile (a move to a new host, with its token) was undone, and a token
    // given for one host sent to another, when this wrote over it (a hostile review, 2026-12-01).
    const onto = dest !== undefined || sealed ? stream : undefined;
    const written = await updateStreamDestination(
      db,
      stream.id,
      { label: v.label, url: dest?.url, options: dest?.options, sealed },
      onto && { url: onto.url, options: onto.options },
      v.ifUpdatedAt,
    );
    if (!written && v.ifUpdatedAt !== undefined) throw changedMeanwhile(stream);
    if (!written && onto) {
      throw new AppError(
        'precondition_failed',
        `Audit stream ${stream.id}'s destination was changed by someone else meanwhile; reload it and save again.`,
      );
    }
    if (v.enabled !== undefined && v.enabled !== stream.enabled) {
      await updateReceiver(db, stream.id, {
        url: undefined,
        label: undefined,
        events: undefined,
        enabled: v.enabled,
      });
      if (!v.enabled) await failPendingDeliveries(db, stream.id, STREAM_DISABLED_BY_OWNER);
    }
    // a cap from a 413 (batchRepo.ts) was the old destination's, or is stale after a pause
    if (dest !== undefined || (v.enabled !== undefined && v.enabled !== stream.enabled))
      await dropRunCap(db, stream.id);
    if (changed.length > 0)
      await record(
        db,
        audit,
        stream,
        'audit_stream.changed',
        `${v.label ?? stream.label}: ${changed.join('; ')}`,
      );
  });
  return (await selectStream(deps.pool, stream.id, deps.historyRetentionMs))!;
}

const changedMeanwhile = (stream: StreamRow) =>
  new AppError(
    'precondition_failed',
    `Audit stream "${stream.label}" was changed by someone else since this change was decided: reload it and save again.`,
  );

/** Removes a stream with its deliveries; recorded as audit_stream.removed. */
export async function removeStream(
  deps: StreamDeps,
  stream: StreamRow,
  audit: Auditor,
): Promise<StreamRow> {
  await withTransaction(deps.pool, async (db) => {
    await deleteReceiver(db, stream.id);
    await record(
      db,
      audit,
      stream,
      'audit_stream.removed',
      `${stream.label}: ${KIND_WORDS[stream.kind]} to ${urlInTrail(stream.url)}`,
    );
  });
  return stream;
}

/** RFC 3339 UTC with microseconds, as every entry's created_at. */
const microseconds = (at: Date): string => at.toISOString().replace('Z', '000Z');

/**
 * The Test action of a stream (owners): one test entry (`"test": true`, position 0; not in the
 * audit log, not counted as a failure) queued to this stream only, beside its run; queued is not
 * delivered. Its 2xx after failures drains the stream's waiting run at once (catch-up). Refused
 * while ten Test entries of the stream wait (boundedPendingTests).
 */
export async function testStream(
  deps: StreamDeps,
  stream: StreamRow,
  audit: Auditor,
): Promise<string> {
  if (!stream.enabled) {
    throw new AppError(
      'precondition_failed',
      `Audit stream ${stream.id} is disabled; enable it first.`,
    );
  }
  const entry = JSON.stringify({
    position: 0,
    id: `tst_${randomBase62(20)}`,
    kind: 'activity',
    brand_id: stream.brand_id,
    created_at: microseconds(new Date()),
    action: 'audit_stream.tested',
    actor: { member_id: audit.memberId, email: audit.email },
    subject_id: stream.id,
    summary: `A test entry for ${stream.label}: this stream reaches its destination. Test entries have position 0 and are in no audit log.`,
    client_address: '',
    user_agent: '',
    source: 'webhooks',
    test: true,
  });
  return withTransaction(deps.pool, async (db: PoolClient) => {
    if (!(await lockReceiverForTest(db, stream.id)))
      throw new AppError('not_found', `No audit stream ${stream.id}.`);
    await boundedPendingTests(db, stream.id, `Audit stream "${stream.label}"`);
    const batch = await insertBatch(db, stream, { testEntry: entry });
    await record(db, audit, stream, 'audit_stream.tested', `${stream.label}: a test entry queued`);
    return batch.id;
  });
}
