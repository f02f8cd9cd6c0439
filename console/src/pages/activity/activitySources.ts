import { status } from '@grpc/grpc-js';
import type { ActivitySource } from '@brand/shared/activity';
import { ServiceCallError } from '../../clients/memberCaller';
import type { ConsoleDeps } from '../../consoleDeps';

/** The three services that keep a part of the log, named as the page says them. */
export function activitySources(
  deps: ConsoleDeps,
  assertion: () => Promise<string>,
): { name: string; source: ActivitySource }[] {
  const ctx = async () => ({ assertion: await assertion() });
  return [
    {
      name: 'keys, members and sign-ins',
      source: async (req) => deps.clients.access('listActivity', req, await ctx()),
    },
    {
      name: 'receivers and deliveries',
      source: async (req) => deps.clients.webhooks('listActivity', req, await ctx()),
    },
    { name: 'plans', source: async (req) => deps.clients.plans('listActivity', req, await ctx()) },
  ];
}

/** A refusal (bad input, role, brand) is the page's answer; anything else is an outage. */
const REFUSALS = new Set<status>([
  status.INVALID_ARGUMENT,
  status.PERMISSION_DENIED,
  status.NOT_FOUND,
  status.UNAUTHENTICATED,
]);

/**
 * For the page: a service that does not answer reads as an empty log, and its name is added
 * to `unavailable` so the page says that part is missing. The export never does this (an
 * export must hold the whole range or fail).
 */
export function tolerant(
  named: { name: string; source: ActivitySource },
  unavailable: string[],
): ActivitySource {
  return async (req) => {
    try {
      return await named.source(req);
    } catch (err) {
      if (err instanceof ServiceCallError && REFUSALS.has(err.grpcStatus)) throw err;
      if (!unavailable.includes(named.name)) unavailable.push(named.name);
      return { entries: [], next_page_token: '' };
    }
  };
}
