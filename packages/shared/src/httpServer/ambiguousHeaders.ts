import { AppError } from '../errors/appError';

/**
 * The refusal of a request carrying two Authorization or two Host headers (400
 * malformed_request), or undefined: Node keeps the first and drops the rest, so a proxy
 * reading the last one and this gateway would disagree about who is calling or where.
 * When both repeat, the one that appears first is named. It runs on every request (the
 * prelude), so it compares lengths before it lowercases anything.
 */
export function ambiguousHeaderError(rawHeaders: readonly string[]): AppError | undefined {
  let authorization = 0;
  let host = 0;
  let hostFirst = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorization += 1;
    else if (name.length === 4 && name.toLowerCase() === 'host') {
      if (host === 0 && authorization === 0) hostFirst = true;
      host += 1;
    }
  }
  if (authorization <= 1 && host <= 1) return undefined;
  const named = host > 1 && (hostFirst || authorization <= 1) ? 'Host' : 'Authorization';
  return new AppError(
    'malformed_request',
    `The request carries ${named === 'Host' ? host : authorization} ${named} headers; send exactly one.`,
  );
}
