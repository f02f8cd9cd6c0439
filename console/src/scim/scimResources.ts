import type { ScimGroup, ScimUser } from '@brand/proto/access/v1/provisioning';
import { SCIMMY } from 'scimmy-routers';
import type { ConsoleClients } from '../clients/consoleClients';
import { resourceNotFound, scimCall, type StatusOverride } from './scimErrors';
import {
  filteredListOf,
  fromOlderRecords,
  MAX_PAGE,
  membersLeftOut,
  pageOf,
  readAllBounded,
  rowsForScimmy,
  windowFor,
  type Constraints,
  type RecordsAnswer,
  type RecordsWindow,
} from './scimPaging';

/**
 * What the SCIM router hands each resource handler: the provider's checked token, and the status
 * to answer instead of scimmy's when records is busy or unreachable (scimErrors.ts).
 */
export interface ScimContext {
  token: string;
  /** The brand the token is of, as records answered. */
  brandId: string;
  override?: StatusOverride;
  /** The version the provider's If-Match names (ifMatchVersion), for a PUT, PATCH or DELETE. */
  ifMatch?: string;
  /** The version of each resource this request read ("User scu_…"): what its PATCH expects. */
  read?: Map<string, string>;
}

/** A version as SCIM shows it (meta.version, ETag): a weak entity tag, `W/"<n>"`. */
export const etagOf = (version: string): string | undefined =>
  version ? `W/"${version}"` : undefined;

/**
 * The version an If-Match names: `W/"n"` or `"n"` as this endpoint gives them; `*` (or none) is
 * no condition; anything else names a version no resource has ("0"), so the write is refused 412.
 */
export function ifMatchVersion(header: string | undefined): string | undefined {
  const value = header?.trim();
  if (!value || value === '*') return undefined;
  return /^(?:W\/)?"(\d{1,19})"$/.exec(value)?.[1] ?? '0';
}

/**
 * What a write of this resource expects it to be at: what the provider's If-Match names, else
 * the version this request read (a PATCH reads, applies its operations, and writes back the
 * whole resource: a write made meanwhile would otherwise be undone), else nothing (a create, a
 * PUT without If-Match: last writer wins, as a full replace means).
 */
const expectedVersion = (ctx: ScimContext, kind: 'User' | 'Group', id: string | undefined) =>
  id ? (ctx.ifMatch ?? ctx.read?.get(`${kind} ${id}`) ?? '') : '';

/** Keeps the version of the one resource a request read, for its PATCH's write. */
function noteRead(ctx: ScimContext, kind: 'User' | 'Group', id: string, version: string): void {
  (ctx.read ??= new Map()).set(`${kind} ${id}`, version);
}

type Provisioning = ConsoleClients['provisioning'];
type Json = Record<string, unknown>;

/** scimmy's parsed filter: a list of alternatives, each { attribute: [operator, value] }. */
type ParsedFilter = ({ [attribute: string]: unknown } & object)[] & {
  match(values: Json[]): Json[];
};

/** The one value of a filter `<attribute> eq "<value>"`, which records can look up itself. */
function equalityOf(filter: ParsedFilter | undefined, attribute: string): string | undefined {
  if (!filter || filter.length !== 1) return undefined;
  const [only] = filter;
  const keys = Object.keys(only!);
  if (keys.length !== 1 || keys[0]!.toLowerCase() !== attribute.toLowerCase()) return undefined;
  const expr = only![keys[0]!];
  return Array.isArray(expr) && expr[0] === 'eq' && typeof expr[1] === 'string'
    ? expr[1]
    : undefined;
}

/** What scimmy hands an egress: the id read, or the list's filter and paging. */
interface ListedResource {
  id?: string;
  filter?: ParsedFilter;
  constraints?: Constraints;
  attributes?: Record<string, unknown>[];
}

/**
 * A list as records pages it (scimPaging.ts). Unfiltered, or filtered by a lookup records made
 * itself (`lookedUp`), and not sorted: records answers the page and the list's total, which
 * scimmy's ListResponse is given (resource.constraints.totalResults, its own field) to report.
 * Otherwise scimmy filters and sorts the whole list here, as before, bounded: read from records
 * in chunks, refused tooMany past MAX_FILTERED.
 *
 * A lookup records made is not filtered again: by userName or displayName records compares
 * case-insensitively as the schema says (caseExact false, RFC 7643), and scimmy's `eq` exactly,
 * so a provider asking for "alice@…" of a stored "Alice@…" found nobody, was refused the POST that
 * followed (taken), and could never link or deprovision the user.
 */
async function listed<R extends { id: string }>(
  resource: ListedResource,
  lookedUp: boolean,
  read: (window: RecordsWindow, paged?: 'paged') => Promise<RecordsAnswer<R>>,
  out: (row: R) => Json,
  bounded: { chunk: number; kind: 'users' | 'groups'; ctx: ScimContext },
): Promise<Json[]> {
  const filter = lookedUp ? undefined : resource.filter;
  if (!filter && resource.constraints?.sortBy === undefined) {
    const page = pageOf(resource.constraints);
    const answer = await read(windowFor(page), 'paged');
    // An older records answered every row: scimmy pages them, as before.
    if (fromOlderRecords(answer)) return answer.rows.map(out);
    resource.constraints = {
      ...resource.constraints,
      count: page.count,
      totalResults: answer.total,
    };
    return rowsForScimmy(page, answer.rows, answer.total).map(out);
  }
  return filteredListOf(bounded.ctx.brandId, bounded.ctx, async () => {
    const all = (await readAllBounded(read, bounded.chunk, bounded.kind)).map(out);
    return filter ? filter.match(all) : all;
  });
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A user as records stores it, as the SCIM core User schema reads. */
function userOut(u: ScimUser): Json {
  return {
    id: u.id,
    userName: u.user_name,
    ...(u.external_id ? { externalId: u.external_id } : {}),
    displayName: u.display_name || undefined,
    name:
      u.given_name || u.family_name
        ? { givenName: u.given_name || undefined, familyName: u.family_name || undefined }
        : undefined,
    emails: u.emails.map((e) => ({
      value: e.value,
      type: e.type || undefined,
      primary: e.primary,
    })),
    active: u.active,
    groups: u.groups.map((g) => ({ value: g.id, display: g.display })),
    meta: { created: u.created_at, lastModified: u.updated_at, version: etagOf(u.version) },
  };
}

/** What the provider sent (scimmy checked it against the schema), as records takes it. */
/**
 * The items of a multi-valued attribute, each an object: a null or a bare value is refused 400
 * invalidValue here (scimmy lets `[null]` through; read as an object it threw a TypeError,
 * answered 503 as if records were down, which a provider retries forever).
 */
function itemsOf(instance: Json, attribute: string): Json[] {
  const list = instance[attribute];
  if (!Array.isArray(list)) return [];
  const bad = list.findIndex((item) => typeof item !== 'object' || item === null);
  if (bad >= 0) {
    throw new SCIMMY.Types.Error(
      400,
      'invalidValue',
      `${attribute}[${bad}] must be an object with a value.`,
    );
  }
  return list as Json[];
}

function userIn(id: string, instance: Json): ScimUser {
  const name = (instance.name ?? {}) as Json;
  const emails = itemsOf(instance, 'emails');
  return {
    id,
    user_name: text(instance.userName),
    external_id: text(instance.externalId),
    display_name: text(instance.displayName),
    given_name: text(name.givenName),
    family_name: text(name.familyName),
    emails: emails.map((e) => ({
      value: text(e.value),
      type: text(e.type),
      primary: e.primary === true,
    })),
    // RFC 7643 4.1.1: active is optional; a user created without it is active (a replace without
    // it keeps the user's own: the User resource's ingress).
    active: instance.active !== false,
    groups: [],
    created_at: '',
    updated_at: '',
    version: '',
  };
}

/** A group as records stores it, as the SCIM core Group schema reads (groupMembersRoute.ts too). */
export function groupOut(g: ScimGroup): Json {
  return {
    id: g.id,
    displayName: g.display_name,
    ...(g.external_id ? { externalId: g.external_id } : {}),
    members: g.members.map((m) => ({ value: m.value, display: m.display, type: 'User' })),
    meta: { created: g.created_at, lastModified: g.updated_at, version: etagOf(g.version) },
  };
}

function groupIn(id: string, instance: Json): ScimGroup {
  const members = itemsOf(instance, 'members');
  return {
    id,
    display_name: text(instance.displayName),
    external_id: text(instance.externalId),
    members: members.map((m) => ({ value: text(m.value), display: '' })),
    created_at: '',
    updated_at: '',
    version: '',
  };
}

/**
 * Declares the SCIM User and Group resources once per process (scimmy keeps one registry), each
 * handler calling records with the provider's token for the request: records alone decides the
 * brand, membership and roles. `provisioning()` answers the client of the app being served.
 */
export function declareScimResources(provisioning: () => Provisioning): void {
  if (SCIMMY.Resources.declared(SCIMMY.Resources.User)) return;
  SCIMMY.Resources.declare(SCIMMY.Resources.User, {
    egress: async (resource: ListedResource, ctx: ScimContext) => {
      const lookup = {
        id: resource.id ?? equalityOf(resource.filter, 'id'),
        user_name: equalityOf(resource.filter, 'userName'),
        external_id: equalityOf(resource.filter, 'externalId'),
      };
      const read = async (window: RecordsWindow) => {
        const { users, total_results } = await scimCall(ctx, () =>
          provisioning()('listScimUsers', {
            scim_token: ctx.token,
            id: lookup.id ?? '',
            user_name: lookup.user_name ?? '',
            external_id: lookup.external_id ?? '',
            ...window,
          }),
        );
        return { rows: users, total: total_results };
      };
      if (resource.id) {
        const [found] = (await read({ start_index: 0, count: 0 })).rows;
        if (!found) throw resourceNotFound(resource.id);
        noteRead(ctx, 'User', found.id, found.version);
        return userOut(found);
      }
      const lookedUp = !resource.filter || Object.values(lookup).some((v) => v !== undefined);
      return listed(resource, lookedUp, read, userOut, { chunk: 500, kind: 'users', ctx });
    },
    ingress: async (resource: { id?: string }, instance: Json, ctx: ScimContext) => {
      const written = userIn(resource.id ?? '', instance);
      let expected = expectedVersion(ctx, 'User', resource.id);
      if (resource.id && typeof instance.active !== 'boolean') {
        // A replace that leaves `active` out does not assert it (RFC 7644 3.5.1): it stays as it
        // is. Read as "active", a PUT of a changed name undid a deprovisioning. The write expects
        // the version read, so a deactivation made meanwhile is not undone either (412).
        const { users } = await scimCall(ctx, () =>
          provisioning()('listScimUsers', {
            scim_token: ctx.token,
            id: resource.id!,
            user_name: '',
            external_id: '',
            start_index: 0,
            count: 0,
          }),
        );
        const [current] = users;
        if (!current) throw resourceNotFound(resource.id);
        written.active = current.active;
        expected ||= current.version;
      }
      const { user } = await scimCall(ctx, () =>
        provisioning()('writeScimUser', {
          scim_token: ctx.token,
          user: written,
          expected_version: expected,
        }),
      );
      return userOut(user!);
    },
    degress: async (resource: { id?: string }, ctx: ScimContext) => {
      await scimCall(ctx, () =>
        provisioning()('deleteScimUser', {
          scim_token: ctx.token,
          id: resource.id ?? '',
          expected_version: expectedVersion(ctx, 'User', resource.id),
        }),
      );
    },
  });
  SCIMMY.Resources.declare(SCIMMY.Resources.Group, {
    egress: async (resource: ListedResource, ctx: ScimContext) => {
      const lookup = {
        id: resource.id ?? equalityOf(resource.filter, 'id'),
        display_name: equalityOf(resource.filter, 'displayName'),
      };
      // Members are left out of a list whose answer names none, when its filter and sortBy do not
      // name them either: a read by id is what a PATCH writes back whole. A list the console
      // filters or sorts with members reads few groups a call and at most MAX_FILTERED_MEMBERS.
      const withoutMembers =
        membersLeftOut(resource.attributes) &&
        !/members/i.test(JSON.stringify(resource.filter ?? [])) &&
        !/members/i.test(resource.constraints?.sortBy ?? '');
      const read = async (window: RecordsWindow) => {
        const { groups, total_results } = await scimCall(ctx, () =>
          provisioning()('listScimGroups', {
            scim_token: ctx.token,
            id: lookup.id ?? '',
            display_name: lookup.display_name ?? '',
            ...window,
            without_members: withoutMembers,
          }),
        );
        return { rows: groups, total: total_results };
      };
      if (resource.id) {
        const [found] = (await read({ start_index: 0, count: 0 })).rows;
        if (!found) throw resourceNotFound(resource.id);
        noteRead(ctx, 'Group', found.id, found.version);
        return groupOut(found);
      }
      const lookedUp = !resource.filter || Object.values(lookup).some((v) => v !== undefined);
      // With members, groups in twos: each carries up to 20,000.
      return listed(resource, lookedUp, read, groupOut, {
        chunk: withoutMembers ? MAX_PAGE : 2,
        kind: 'groups',
        ctx,
      });
    },
    ingress: async (resource: { id?: string }, instance: Json, ctx: ScimContext) => {
      const written = groupIn(resource.id ?? '', instance);
      const { group } = await scimCall(ctx, () =>
        provisioning()('writeScimGroup', {
          scim_token: ctx.token,
          group: written,
          expected_version: expectedVersion(ctx, 'Group', resource.id),
        }),
      );
      return groupOut(group!);
    },
    degress: async (resource: { id?: string }, ctx: ScimContext) => {
      await scimCall(ctx, () =>
        provisioning()('deleteScimGroup', {
          scim_token: ctx.token,
          id: resource.id ?? '',
          expected_version: expectedVersion(ctx, 'Group', resource.id),
        }),
      );
    },
  });
}
