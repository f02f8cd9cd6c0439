import { AppError, quoteInput } from '@brand/shared/errors';
import { isResourceName, RESOURCES, type ResourceName } from '@brand/shared/resources';

/**
 * The resource a path names, or 404 unknown_resource: the lists' `/api/v1/{resource}` and a
 * record's `/api/v1/{resource}/{id}` say the same.
 */
export function resourceNamed(name: string): ResourceName {
  if (isResourceName(name)) return name;
  throw new AppError(
    'unknown_resource',
    `Unknown resource ${quoteInput(name)}; the resources are ${RESOURCES.join(', ')}.`,
  );
}
