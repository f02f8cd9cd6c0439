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

/**
 * A path's resource segment decoded, or undefined when its percent-encoding is malformed. Read
 * before admission (the rate limit peeks at the resource's change version) but refused only
 * after it, by resourceNamed: without a key such a path is 401 like any other, and counted.
 */
export function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The resource of a decoded segment (undefined: malformed, 400), or 404 unknown_resource. */
export function resourceOfSegment(name: string | undefined): ResourceName {
  if (name === undefined) {
    throw new AppError(
      'malformed_request',
      'The request could not be read; check the URL and its percent-encoding.',
    );
  }
  return resourceNamed(name);
}
