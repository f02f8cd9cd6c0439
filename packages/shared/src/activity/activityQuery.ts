import { AppError } from '../errors/appError';
import { decodeKeysetCursor, encodeKeysetCursor } from '../db/keysetCursor';
import { parseTimeRange } from '../export/timeBound';

const ACTIVITY_ID = /^act_[A-Za-z0-9]{1,64}$/;
const MEMBER_ID = /^mem_[A-Za-z0-9]{1,64}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
// "key.created", or a kind with a trailing dot ("key.") for all its actions.
const ACTION = /^[a-z_]{1,40}(?:\.(?:[a-z_]{1,40})?)?$/;
const SUBJECT_ID = /^[a-z]{2,4}_[A-Za-z0-9]{1,64}$/;

/** The filters of an activity listing, as the wire carries them: empty means any. */
export interface ActivityFilterFields {
  actor: string;
  action: string;
  subject_id: string;
  since: string;
  until: string;
}

/** Where a page ended: the exact created_at (microseconds) and id of its last row. */
export interface ActivityPosition {
  created_at: string;
  id: string;
}

/** Filters checked and ready for SQL. */
export interface ActivityFilters {
  actorMemberId?: string;
  actorEmail?: string;
  action?: string;
  actionPrefix?: string;
  subjectId?: string;
  since?: Date;
  until?: Date;
}

function invalid(field: string, message: string): AppError {
  return new AppError('validation_failed', `${field}: ${message}.`, {
    details: [{ field, message }],
  });
}

/**
 * Checks the filters; validation_failed naming the field for one that is not what it should
 * be (the console, the CLI and the three services all use this one reading).
 */
export function parseActivityFilters(raw: ActivityFilterFields): ActivityFilters {
  const f: ActivityFilters = {};
  const actor = raw.actor.trim();
  if (actor === 'operator') f.actorEmail = 'operator';
  else if (MEMBER_ID.test(actor)) f.actorMemberId = actor;
  else if (EMAIL.test(actor)) f.actorEmail = actor.toLowerCase();
  else if (actor !== '')
    throw invalid('actor', 'must be a member id (mem_...), an email or "operator"');
  const action = raw.action.trim();
  if (action !== '' && !ACTION.test(action)) {
    throw invalid('action', 'must be an action such as key.created, or a kind such as key.');
  }
  if (action.endsWith('.')) f.actionPrefix = action;
  else if (action !== '') f.action = action;
  const subject = raw.subject_id.trim();
  if (subject !== '' && !SUBJECT_ID.test(subject)) {
    throw invalid('subject_id', 'must be an id such as key_..., rcv_... or mem_...');
  }
  if (subject !== '') f.subjectId = subject;
  const { since, until } = parseTimeRange({ since: raw.since, until: raw.until });
  if (since) f.since = since;
  if (until) f.until = until;
  return f;
}

/**
 * Cursors are a row's exact (created_at, id), base64url JSON. The three services' logs share
 * this order and activity ids are unique across them, so one position serves all three: the
 * console passes its merged cursor to each. Not signed: the brand comes from the request
 * (checked against the caller), so a forged cursor only moves the starting point within a
 * log the caller may read anyway.
 */
export function encodeActivityCursor(last: ActivityPosition): string {
  return encodeKeysetCursor(last);
}

/** The shared keyset cursor, refused with the activity listings' own code, invalid_cursor. */
export function decodeActivityCursor(cursor: string): ActivityPosition {
  try {
    return decodeKeysetCursor(cursor, ACTIVITY_ID);
  } catch {
    throw new AppError(
      'invalid_cursor',
      'cursor: not a cursor this listing issued (pass it as given).',
    );
  }
}
