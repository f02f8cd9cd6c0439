import type { ConsoleSsoServiceServer, SsoConnection } from '@brand/proto/access/v1/sso';
import type { RpcBuilder } from '@brand/shared/grpc';
import { toOpenedResponse } from '../sessions/openSession';
import { boundedClient } from '../sessions/signInClient';
import type { SsoConnectionRow } from './ssoConnectionRepo';
import {
  getSsoConnection,
  removeSsoConnection,
  setSsoConnection,
  type SsoConnectionDeps,
} from './ssoConnectionService';
import { beginSsoSignIn, finishSsoSignIn, type SsoSignInDeps } from './ssoSignIn';

/** A connection as owners see it: never the secret, sealed or not. */
const toConnection = (c: SsoConnectionRow): SsoConnection => ({
  brand_id: c.brand_id,
  issuer: c.issuer,
  client_id: c.client_id,
  allowed_domains: c.allowed_domains,
  enabled: c.enabled,
  updated_at: c.updated_at,
});

/**
 * The ConsoleSsoService: a brand's identity provider (owners, through the console, or
 * operators) and signing in through it (the console only).
 */
export function ssoHandlers(
  deps: SsoSignInDeps & SsoConnectionDeps,
  rpc: RpcBuilder,
): ConsoleSsoServiceServer {
  return {
    getSsoConnection: rpc.developers('GetSsoConnection', async (req, { actor }) => {
      const c = await getSsoConnection(deps, actor, { brandId: req.brand_id });
      return { connection: c ? toConnection(c) : undefined };
    }),

    setSsoConnection: rpc.developers('SetSsoConnection', async (req, { actor }) => ({
      connection: toConnection(
        await setSsoConnection(deps, actor, {
          brandId: req.brand_id,
          issuer: req.issuer,
          clientId: req.client_id,
          clientSecret: req.client_secret,
          allowedDomains: req.allowed_domains,
          enabled: req.enabled,
        }),
      ),
    })),

    removeSsoConnection: rpc.developers('RemoveSsoConnection', async (req, { actor }) => {
      await removeSsoConnection(deps, actor, { brandId: req.brand_id });
      return {};
    }),

    beginSsoSignIn: rpc.console('BeginSsoSignIn', async (req) => {
      const begun = await beginSsoSignIn(deps, {
        email: req.email,
        brandId: req.brand_id,
        origin: req.origin,
        binding: req.browser_binding,
        clientKey: req.client_key,
      });
      return { authorization_url: begun.authorizationUrl, brand_name: begun.brandName };
    }),

    finishSsoSignIn: rpc.console('FinishSsoSignIn', async (req) => {
      const opened = await finishSsoSignIn(deps, {
        origin: req.origin,
        callbackUrl: req.callback_url,
        binding: req.browser_binding,
        client: boundedClient(req.client),
      });
      return toOpenedResponse(opened);
    }),
  };
}
