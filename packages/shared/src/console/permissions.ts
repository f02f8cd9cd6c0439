import type { RoleName } from '../enums/access';

const EVERY_ROLE = ['owner', 'admin', 'member'] as const satisfies readonly RoleName[];
const OWNERS = ['owner'] as const satisfies readonly RoleName[];

/**
 * THE permission table of the Developers area: each action a brand member can take through
 * the console, and the roles allowed to take it. The owning service checks it on every call
 * made for a member (records for keys, members and its activity; webhooks for receivers and
 * deliveries; plans for plans); the console reads it only to hide what would be refused.
 *
 * SPEC 2.4 and 5.2 give receivers and keys to owners ("owner-level brand account"), so
 * owners do everything and admins and members read only; members management is owners
 * only, reading the member list included.
 */
export const CONSOLE_PERMISSIONS = {
  'keys.read': EVERY_ROLE,
  'keys.create': OWNERS,
  'keys.revoke': OWNERS,
  'members.read': OWNERS,
  'members.manage': OWNERS,
  'receivers.read': EVERY_ROLE,
  /** Add, edit, enable, disable and remove receivers. */
  'receivers.manage': OWNERS,
  'receivers.test': OWNERS,
  'deliveries.read': EVERY_ROLE,
  'deliveries.resend': OWNERS,
  /** Pending, cancelled and completed plans, notes included (private to the brand). */
  'plans.read': EVERY_ROLE,
  'plans.cancel': OWNERS,
  'activity.read': EVERY_ROLE,
} as const satisfies Record<string, readonly RoleName[]>;

export type ConsoleAction = keyof typeof CONSOLE_PERMISSIONS;

/** Every action, in the table's order. */
export const CONSOLE_ACTIONS = Object.keys(CONSOLE_PERMISSIONS) as ConsoleAction[];

/** Whether a member of this role may take this action. */
export function roleAllows(role: RoleName, action: ConsoleAction): boolean {
  return (CONSOLE_PERMISSIONS[action] as readonly RoleName[]).includes(role);
}
