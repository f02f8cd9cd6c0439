/*
 * A PATCH of a group's members alone, applied without scimmy. Providers keep large groups in sync
 * with such PATCHes (Entra ID adds and removes a few members a request; Okta removes one by a
 * filtered path), and scimmy applies each by coercing the whole group through its schema three
 * times (read, apply, write back): about 7 s of CPU for a group of 20,000 members, on the one
 * thread that serves every brand's console. Here a change of members is a set operation over the
 * ids, O(members). Anything else (a rename, a path or value of another form) goes to scimmy as
 * before.
 */

const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
/** A user id as records issues them (expressionGuard.ts's isUnknownId reads the same form). */
const USER_ID = /^scu_[A-Za-z0-9]{1,64}$/;
/** `members[value eq "scu_…"]`, attribute names in any case (RFC 7643 2.1). */
const ONE_MEMBER = /^members\[\s*value\s+eq\s+"(scu_[A-Za-z0-9]{1,64})"\s*\]$/i;

/** One operation on the members: ids added, removed or made the whole list, or all removed. */
export type MemberStep =
  { kind: 'add' | 'remove' | 'replace'; ids: string[] } | { kind: 'removeAll' };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ids of `[{ "value": "scu_…" }, …]`, or undefined for any other value. */
function idsOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const ids: string[] = [];
  for (const item of value) {
    if (!isObject(item) || typeof item.value !== 'string' || !USER_ID.test(item.value)) {
      return undefined;
    }
    ids.push(item.value);
  }
  return ids;
}

function stepOf(operation: unknown): MemberStep | undefined {
  if (!isObject(operation) || typeof operation.op !== 'string') return undefined;
  if (typeof operation.path !== 'string') return undefined;
  const verb = operation.op.toLowerCase();
  const path = operation.path.trim();
  const one = ONE_MEMBER.exec(path);
  if (one) {
    return verb === 'remove' && operation.value === undefined
      ? { kind: 'remove', ids: [one[1]!] }
      : undefined;
  }
  if (path.toLowerCase() !== 'members') return undefined;
  if (verb === 'remove' && operation.value === undefined) return { kind: 'removeAll' };
  const ids = idsOf(operation.value);
  if (!ids) return undefined;
  if (verb === 'add' || verb === 'remove' || verb === 'replace') return { kind: verb, ids };
  return undefined;
}

/**
 * The member steps of a PatchOp body, when every operation is one of: add, remove or replace
 * of `members` with a list of `{ "value": "scu_…" }`; remove of `members` (all of them); remove
 * of `members[value eq "scu_…"]`. Undefined for any other body, which scimmy applies.
 */
export function memberStepsOf(body: unknown): MemberStep[] | undefined {
  if (!isObject(body) || !Array.isArray(body.schemas) || !body.schemas.includes(PATCH_SCHEMA)) {
    return undefined;
  }
  const operations = body.Operations;
  if (!Array.isArray(operations) || operations.length === 0) return undefined;
  const steps: MemberStep[] = [];
  for (const operation of operations) {
    const step = stepOf(operation);
    if (!step) return undefined;
    steps.push(step);
  }
  return steps;
}

/**
 * The members after the steps, in order: added ids go at the end, once each; removing an id
 * that is not a member changes nothing (as scimmy: no error, RFC 7644 3.5.2.2). Undefined when
 * the members are the same ids in the same order, so the group is not written.
 */
export function applyMemberSteps(
  current: readonly string[],
  steps: readonly MemberStep[],
): string[] | undefined {
  let members = new Set(current);
  for (const step of steps) {
    if (step.kind === 'removeAll') members = new Set();
    else if (step.kind === 'replace') members = new Set(step.ids);
    else if (step.kind === 'add') for (const id of step.ids) members.add(id);
    else for (const id of step.ids) members.delete(id);
  }
  const after = [...members];
  const same = after.length === current.length && after.every((id, i) => id === current[i]);
  return same ? undefined : after;
}
