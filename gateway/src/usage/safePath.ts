import { keyEnvironment } from '@brand/shared/keys';

const MAX_PATH = 256;
const MAX_SEGMENT = 80;

/**
 * A request target as the request log may keep it: the path only (the query string, where a
 * cursor or a misplaced key could sit, is dropped), every segment shaped like one of our keys
 * replaced by "<key>", overlong segments cut, the whole at most 256 characters.
 */
export function safePath(target: string | undefined): string {
  const raw = target ?? '';
  const end = raw.search(/[?#]/);
  const path = end === -1 ? raw : raw.slice(0, end);
  const safe = path
    .split('/')
    .map((segment) => {
      if (keyEnvironment(segment) !== undefined || looksLikeKey(segment)) return '<key>';
      return segment.length > MAX_SEGMENT ? `${segment.slice(0, MAX_SEGMENT)}…` : segment;
    })
    .join('/');
  return safe.length > MAX_PATH ? `${safe.slice(0, MAX_PATH - 1)}…` : safe;
}

/** A key inside a segment or percent-encoded: our key prefix anywhere in it, any case. */
function looksLikeKey(segment: string): boolean {
  return /bk(?:_|%5f)(?:live|test)(?:_|%5f)/i.test(segment);
}
