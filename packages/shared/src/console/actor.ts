import { AppError } from '../errors/appError';
import type { MemberClaims } from './memberAssertion';
import { roleAllows, type ConsoleAction } from './permissions';

/**
 * Who is calling an RPC, as established by the caller credential (and, for the console,
 * the member assertion): an operator with the admin token (brandctl), a brand member through
 * the console, another service with the internal token, or the console on its own (signing
 * in, before any member is known).
 */
export type Actor =
  | { kind: 'operator' }
  | { kind: 'member'; member: MemberClaims }
  | { kind: 'service' }
  | { kind: 'console' };

/**
 * Allows or refuses an action on a brand's resource. An operator may do anything (the admin
 * token is the authority brandctl always had). A member must belong to `brandId`, or the
 * resource does not exist for them (`notFound`, never a 403 that would confirm it exists),
 * and their role must allow the action (insufficient_permission, saying who may).
 */
export function authorize(
  actor: Actor,
  action: ConsoleAction,
  brandId: string,
  notFound: () => AppError,
): void {
  if (actor.kind === 'operator') return;
  if (actor.kind !== 'member') {
    throw new AppError('insufficient_permission', 'This caller may not take this action.');
  }
  if (actor.member.brand_id !== brandId) throw notFound();
  if (!roleAllows(actor.member.role, action)) {
    throw new AppError('insufficient_permission', roleRefusal(actor.member.role, action));
  }
}

/** What a refusal for a role says (insufficient_permission): the role, the action, who may. */
export function roleRefusal(role: MemberClaims['role'], action: ConsoleAction): string {
  return `A brand ${role} cannot do this (${action}); ask a brand owner.`;
}

/** The email recorded as the actor in audit columns and activity: the member's, or "operator". */
export function actorEmail(actor: Actor): string {
  return actor.kind === 'member' ? actor.member.email : 'operator';
}

/** The acting member's id, or "" for an operator. */
export function actorMemberId(actor: Actor): string {
  return actor.kind === 'member' ? actor.member.member_id : '';
}
