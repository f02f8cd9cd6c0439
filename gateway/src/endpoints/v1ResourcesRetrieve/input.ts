import { z } from 'zod';
import { AppError, describeIssues, fieldIssues } from '@brand/shared/errors';
import {
  MAX_RECORD_ID_LENGTH,
  RECORD_ID_MESSAGE,
  RESOURCES,
  recordIdShape,
  type ResourceName,
} from '@brand/shared/resources';
import { parseQueryString } from '../../http/queryString';

/** The route pattern, and the request metric's label of every answer of this endpoint. */
export const RETRIEVE_ROUTE = '/api/v1/:resource/:id';

/**
 * `/api/v1/{resource}/{id}` as express's router would match RETRIEVE_ROUTE: any case, an
 * optional trailing slash, two path segments. The first segment names a resource; the
 * collections of other endpoints under /api/v1 keep their own sub-paths (OTHER_COLLECTIONS).
 */
const RETRIEVE_PATH = /^\/api\/v1\/([^/]+)\/([^/]+?)\/?$/i;

/**
 * Collections under /api/v1 that are not records and answer their own sub-paths (or 404 from
 * express): campaign plans, and the events feed (issue 44, item 2).
 */
const OTHER_COLLECTIONS = /^(campaign-plans|events)$/i;

/** The raw resource and id segments of a record path, or undefined when the path is not one. */
export function retrieveSegmentsOf(
  url: string | undefined,
): { resource: string; id: string } | undefined {
  const target = url ?? '';
  const end = target.search(/[?#]/);
  const match = RETRIEVE_PATH.exec(end === -1 ? target : target.slice(0, end));
  const [, resource, id] = match ?? [];
  if (resource === undefined || id === undefined || OTHER_COLLECTIONS.test(resource))
    return undefined;
  return { resource, id };
}

/** A record in a message: the singular the 404 names. */
const SINGULAR: Readonly<Record<ResourceName, string>> = {
  campaigns: 'campaign',
  submissions: 'submission',
  payouts: 'payout',
  deposits: 'deposit',
  conversions: 'conversion',
  links: 'link',
};

/**
 * 404 not_found for a record the key's brand does not have: one message per resource, which
 * names neither the id nor why (another brand's id, an id that exists nowhere, an id of
 * another resource), so every such answer is the same bytes but for its request id.
 */
export function recordNotFound(resource: ResourceName): AppError {
  return new AppError('not_found', `No ${SINGULAR[resource]} with this id is visible to this key.`);
}

/**
 * The id a record path names, percent-decoded as express decodes a parameter (malformed
 * encoding is URIError: 400 malformed_request). Throws 400 invalid_parameter for what cannot
 * be an id at all, and not_found for an id of another resource (recordIdShape).
 */
export function recordIdOf(resource: ResourceName, segment: string): string {
  const id = decodeURIComponent(segment);
  const shape = recordIdShape(resource, id);
  if (shape === 'malformed') {
    throw new AppError('invalid_parameter', RECORD_ID_MESSAGE, {
      details: [{ field: 'id', message: RECORD_ID_MESSAGE }],
    });
  }
  if (shape === 'elsewhere') throw recordNotFound(resource);
  return id;
}

/** A record takes no query parameters (the OpenAPI document's empty query). */
const NoQuery = z.strictObject({});

/**
 * Refuses any query parameter (400 invalid_parameter, one detail per name), as the lists
 * refuse unknown ones, so a `?expand=` or a stray list parameter shows instead of being
 * ignored. `?` alone is no parameter.
 */
export function refuseQuery(rawQuery: string): void {
  if (rawQuery === '') return;
  const result = NoQuery.safeParse(parseQueryString(rawQuery));
  if (result.success) return;
  const details = fieldIssues(result.error, {
    unknownKey: 'unknown parameter; a record by id takes no query parameters.',
  });
  throw new AppError('invalid_parameter', describeIssues(details, ' '), { details });
}

/** The path parameters, for the OpenAPI document. */
export const RetrieveParams = z.object({
  resource: z
    .string()
    .meta({ description: `One of ${RESOURCES.join(', ')}.`, examples: ['payouts'] }),
  id: z.string().meta({
    description: `The record's id, with its resource's prefix (\`cmp_\`, \`sub_\`, \`po_\`, \`dep_\`, \`cnv_\`, \`lnk_\`). At most ${MAX_RECORD_ID_LENGTH} characters of A-Z, a-z, 0-9 and _, else 400 \`invalid_parameter\`.`,
    examples: ['po_3kTMd9Q0bXh7RzL2aP1c'],
  }),
});
