import { status } from '@grpc/grpc-js';
import express, { type Express } from 'express';
import { ServiceCallError } from '../../clients/memberCaller';
import type { ConsoleDeps } from '../../consoleDeps';

/** Where identity providers POST logout tokens; brands register it at their provider. */
const BACKCHANNEL_LOGOUT_PATH = '/sign-in/sso/backchannel-logout';

/**
 * OpenID Connect Back-Channel Logout 1.0: the provider POSTs `logout_token` (form encoded)
 * server to server. Mounted before the Origin check: the provider is no browser and sends
 * no Origin, and nothing here reads a cookie, so there is no request to forge. Records
 * verifies the token and ends the sessions; the answer is 200 (sessions ended, or none to
 * end) or 400 with an OAuth error body (a token records refused), never cached (spec 2.8).
 */
export function registerSsoBackchannel(app: Express, deps: ConsoleDeps): void {
  app.post(
    BACKCHANNEL_LOGOUT_PATH,
    express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 5 }),
    async (req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      const body = req.body as Record<string, unknown> | undefined;
      const token = typeof body?.logout_token === 'string' ? body.logout_token : '';
      if (token === '') {
        res
          .status(400)
          .json({ error: 'invalid_request', error_description: 'logout_token is required' });
        return;
      }
      try {
        await deps.clients.sso('ssoBackchannelLogout', { logout_token: token });
        res.status(200).end();
      } catch (err) {
        if (err instanceof ServiceCallError && err.grpcStatus === status.INVALID_ARGUMENT) {
          res.status(400).json({ error: 'invalid_request', error_description: err.message });
          return;
        }
        deps.log.warn({ err }, 'back-channel logout failed');
        res.status(501).json({ error: 'temporarily_unavailable' });
      }
    },
  );
}
