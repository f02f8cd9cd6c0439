import type { RoleName } from '../enums/access';

const EVERY_ROLE = ['owner', 'admin', 'member'] as const satisfies readonly RoleName[];
const OWNERS = ['owner'] as const satisfies readonly RoleName[];

/**
 * THE permission table of the Developers area: each action a brand member can take through
 * the console, and the roles allowed to take it. The owning service checks it on every call
 * made for a member (records for keys, members and its activity; webhooks for receivers and
 * deliveries; plans for plans); the console reads it only to hide what would be refused.
 *
 * docs/contract.md#receivers, #authentication give receivers and keys to owners ("owner-level brand account"), so
 * owners do everything and admins and members read only; members management is owners
 * only, reading the member list included.
 */
export const CONSOLE_PERMISSIONS = {
  'keys.read': EVERY_ROLE,
  'keys.create': OWNERS,
  'keys.revoke': OWNERS,
  /** Replace a key (same name, environment, permissions), the old one expiring after an overlap. */
  'keys.roll': OWNERS,
  /** Give a key an expiry or bring it forward ("expire now"); never later. */
  'keys.expire': OWNERS,
  /** Set the networks a key's requests may come from (issue 63). */
  'keys.networks': OWNERS,
  /** The brand's key policy: every new key must have allowed networks (issue 63). */
  'keys.policy': OWNERS,
  'members.read': OWNERS,
  'members.manage': OWNERS,
  /** Require a passkey or SSO for the brand (no emailed links), or lift that (issue 37). */
  'members.sign_in_policy': OWNERS,
  /** Connect, change or remove the brand's identity provider (single sign-on, issue 37). */
  'members.sso': OWNERS,
  /** See and end the sessions the brand's single sign-on opened, any member's (issue 42). */
  'members.sessions': OWNERS,
  /** SCIM tokens, group-to-role mappings and just-in-time membership (issue 61). */
  'members.provisioning': OWNERS,
  'receivers.read': EVERY_ROLE,
  /** Add, edit, enable, disable and remove receivers. */
  'receivers.manage': OWNERS,
  'receivers.test': OWNERS,
  /** Start or cancel a signing-secret rotation, and send a Test signed with the new secret. */
  'receivers.rotate': OWNERS,
  /** Put a rotation's new secret in force, now or at a chosen time (the old one is destroyed). */
  'receivers.switch': OWNERS,
  /** A receiver's health: attempts, success rate, failures by class, latency, the chart. */
  'receivers.health': EVERY_ROLE,
  'deliveries.read': EVERY_ROLE,
  'deliveries.resend': OWNERS,
  /** "Retry now": a pending delivery's next attempt due at once. */
  'deliveries.retry': OWNERS,
  /** Preview and re-queue a receiver's failed deliveries since a time. */
  'deliveries.recover': OWNERS,
  /** Pending, cancelled and completed plans, notes included (private to the brand). */
  'plans.read': EVERY_ROLE,
  'plans.cancel': OWNERS,
  'activity.read': EVERY_ROLE,
  /** The brand's audit streams, their health and last deliveries (issue 63). */
  'audit_streams.read': EVERY_ROLE,
  /** Connect, change, test and remove audit streams (their tokens are sealed, never shown). */
  'audit_streams.manage': OWNERS,
  /** Requests per minute and hour, per key and outcome, against the brand's budget (issue 26). */
  'usage.read': EVERY_ROLE,
  /** The log of refused and failed requests (time, key, path, status, code, request id). */
  'requests.read': EVERY_ROLE,
  /** The reason behind a 401 in that log (revoked by whom, expired, a test key, another brand's key). */
  'requests.reasons': OWNERS,
} as const satisfies Record<string, readonly RoleName[]>;

export type ConsoleAction = keyof typeof CONSOLE_PERMISSIONS;

/** Every action, in the table's order. */
export const CONSOLE_ACTIONS = Object.keys(CONSOLE_PERMISSIONS) as ConsoleAction[];

/** Whether a member of this role may take this action. */
export function roleAllows(role: RoleName, action: ConsoleAction): boolean {
  return (CONSOLE_PERMISSIONS[action] as readonly RoleName[]).includes(role);
}
