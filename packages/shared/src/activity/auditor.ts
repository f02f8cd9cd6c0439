import { actorEmail, actorMemberId, type Actor } from '../console/actor';

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
