import type { RequestHandler } from 'express';
import { AppError, quoteInput } from '@brand/shared/errors';
import type { AccessGate } from '../auth/accessGate';
import { admitApiKey } from './admission';

/**
 * The answer to a request no route matched: 404 `not_found` for a caller with a valid key,
 * charged to the brand's budget like any of its requests, but the key comes first (401 `missing_key` or `invalid_key`, charged to the client address
 * as any failed key is), so the public listener serves nothing without a key but the
 * description file (issue 47), not even a 404 that tells which paths exist. It lives with
 * admission (admission.ts), the key check every endpoint takes, above auth/: in http/, which
 * auth/ builds on, it was the gateway's one import running back up.
 */
export function unmatchedRoute(gate: AccessGate): RequestHandler {
  return async (req, res) => {
    // admitted and charged like any request of the key's: a 404 is no free request
    await admitApiKey(gate, req, res);
    throw new AppError(
      'not_found',
      `No route for ${req.method} ${quoteInput(req.path)}. See /openapi/service.yaml.`,
    );
  };
}
