import { AppError } from '../errors/appError';
import { parseTimeRange } from '../export/timeBound';
import type { ActivityFilterFields, ActivityFilters } from './activityTypes';

const MEMBER_ID = /^mem_[A-Za-z0-9]{1,64}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
// "key.created", or a kind with a trailing dot ("key.") for all its actions.
const ACTION = /^[a-z_]{1,40}(?:\.(?:[a-z_]{1,40})?)?$/;
const SUBJECT_ID = /^[a-z]{2,4}_[A-Za-z0-9]{1,64}$/;

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
