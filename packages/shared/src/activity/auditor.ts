import { z } from 'zod';
import { actorEmail, actorMemberId, type Actor } from '../console/actor';
import { emailAddress } from '../console/emailAddress';
import { parseOrThrow } from '../errors';

/** Who an activity entry names as having acted. */
export interface Auditor {
  /** The member's id; empty for an operator. */
  memberId: string;
  /** The member's email, or "operator". */
  email: string;
}

/** The auditor of a call: the member acting through the console, or "operator". */
export function auditorOf(actor: Actor): Auditor {
  return { memberId: actorMemberId(actor), email: actorEmail(actor) };
}

const ClaimedEmail = z.object({
  actor_email: z.union([z.literal(''), emailAddress]),
});

/**
 * The auditor of a call that may name who acted (brandctl's --actor, `actor_email`): a member
 * is recorded as themselves, whatever the request says; an operator as the email given, or
 * "operator" without one. A value that is not an email is validation_failed on actor_email.
 */
export function auditorNamed(actor: Actor, claimedEmail: string): Auditor {
  if (actor.kind === 'member') return auditorOf(actor);
  const { actor_email } = parseOrThrow(ClaimedEmail, { actor_email: claimedEmail.trim() });
  return { memberId: '', email: actor_email || auditorOf(actor).email };
}
