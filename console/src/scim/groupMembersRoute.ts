import type { Request, RequestHandler, Response } from 'express';
import { SCIMMY } from 'scimmy-routers';
import type { ConsoleClients } from '../clients/consoleClients';
import { applyMemberSteps, memberStepsOf } from './groupMembersPatch';
import { groupOut, type ScimContext } from './scimResources';

const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
/** PATCH /Groups/<id> (express matches paths in any case; ids as records issues them). */
const GROUP_PATH = /^\/groups\/(scg_[A-Za-z0-9]{1,64})\/?$/i;

/** SCIM's dates as scimmy writes them (an ISO string with milliseconds). */
const isoDate = (at: string): string | undefined => (at ? new Date(at).toISOString() : undefined);

/**
 * A PATCH that changes a group's members alone (groupMembersPatch.ts), answered without scimmy:
 * the group read by id, the steps applied to its member ids, and the whole member list written
 * back expecting the version read (or the provider's If-Match: 412 when stale), as scimmy's
 * PATCH does, in milliseconds where scimmy took seconds for a large group. The answer is scimmy's
 * too: 204 when nothing changed, else 200 with the group as its User and Group resources read
 * (written here, not coerced through scimmy's schema, which is where the seconds went). A request
 * that names attributes or excludedAttributes, or any other PATCH, goes on to scimmy.
 */
export function groupMembersRoute(deps: {
  clients: ConsoleClients;
  /** The console's origin, which resources' meta.location starts with (scimmy's baseUri). */
  publicOrigin: string;
  contextOf: (req: Request) => ScimContext | undefined;
  refuse: (res: Response, err: unknown) => void;
}): RequestHandler {
  return (req, res, next) => {
    const id = req.method === 'PATCH' ? GROUP_PATH.exec(req.path)?.[1] : undefined;
    const ctx = deps.contextOf(req);
    const steps = id && ctx ? memberStepsOf(req.body) : undefined;
    const shaped = req.query.attributes !== undefined || req.query.excludedAttributes !== undefined;
    if (!id || !ctx || !steps || shaped) {
      next();
      return;
    }
    const location = `${deps.publicOrigin}${req.baseUrl}/Groups/${id}`;
    patchMembers(deps.clients, ctx, id, steps, location).then(
      (group) => {
        if (!group) res.status(204).end();
        else res.status(200).type('application/scim+json').send(group);
      },
      (err: unknown) => deps.refuse(res, err),
    );
  };
}

/** The group after the steps, as answered; undefined when its members did not change. */
async function patchMembers(
  clients: ConsoleClients,
  ctx: ScimContext,
  id: string,
  steps: NonNullable<ReturnType<typeof memberStepsOf>>,
  location: string,
): Promise<Record<string, unknown> | undefined> {
  const provisioning = clients.provisioning;
  const { groups } = await provisioning('listScimGroups', {
    scim_token: ctx.token,
    id,
    display_name: '',
    start_index: 0,
    count: 0,
    without_members: false,
  });
  const [read] = groups;
  if (!read)
    throw new SCIMMY.Types.Error(404, null as unknown as string, `Resource ${id} not found`);
  if (ctx.ifMatch && ctx.ifMatch !== read.version) {
    throw new SCIMMY.Types.Error(412, null as unknown as string, 'The group changed since.');
  }
  const members = applyMemberSteps(
    read.members.map((m) => m.value),
    steps,
  );
  if (!members) return undefined;
  const { group } = await provisioning('writeScimGroup', {
    scim_token: ctx.token,
    group: { ...read, members: members.map((value) => ({ value, display: '' })) },
    expected_version: ctx.ifMatch ?? read.version,
  });
  const out = groupOut(group!);
  const meta = out.meta as { created: string; lastModified: string; version?: string };
  return {
    schemas: [GROUP_SCHEMA],
    ...out,
    meta: {
      resourceType: 'Group',
      created: isoDate(meta.created),
      lastModified: isoDate(meta.lastModified),
      location,
      version: meta.version,
    },
  };
}
