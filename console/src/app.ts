import path from 'node:path';
import express, { type Express } from 'express';
import type { ConsoleDeps } from './consoleDeps';
import { originCheck } from './csrf/originCheck';
import { clientOrigin } from './http/clientOrigin';
import { FORM_BODY_LIMIT_KB } from './http/formBodyLimit';
import { securityHeaders } from './http/securityHeaders';
import { notFoundPage } from './session/memberSession';
import { serveVendorScripts } from './http/vendorScripts';
import { registerBrands } from './pages/brands/route';
import { errorPages } from './pages/errors/errorPage';
import { registerBrandPages } from './pages/brandPages';
import { registerPasskeys } from './pages/passkeys/route';
import { registerInvitations } from './pages/invitations/route';
import { scimEndpoint } from './scim/scimEndpoint';
import { registerSessions } from './pages/sessions/route';
import { registerSignIn } from './pages/signIn/route';
import { registerSsoBackchannel } from './pages/sso/backchannelRoute';
import { registerPasskeySignIn } from './pages/signIn/passkeySignInRoute';
import { registerSsoSignIn } from './pages/signIn/ssoSignInRoute';

/** Where the stylesheet and the two small scripts live (console/public). */
const PUBLIC_DIR = path.resolve(__dirname, '../public');

/**
 * The console's express application; does not listen. Order: security headers on every
 * answer, static files, then the Origin check on every state-changing request, then the
 * pages (each brand page resolves the session and checks the form's CSRF token).
 */
export function createConsoleApp(deps: ConsoleDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxy);
  app.use(deps.metrics.middleware());
  app.use(securityHeaders({ https: deps.publicOrigin.startsWith('https:') }));
  app.use(
    '/static',
    express.static(PUBLIC_DIR, {
      index: false,
      maxAge: '1h',
      setHeaders: (res) => res.setHeader('Cache-Control', 'public, max-age=3600'),
    }),
  );
  serveVendorScripts(app);
  // server to server, before the Origin check (a provider sends none; no cookie is read)
  registerSsoBackchannel(app, deps);
  app.use('/scim/v2', scimEndpoint(deps));
  app.use(originCheck(deps.publicOrigin));
  app.use(
    express.urlencoded({ extended: false, limit: `${FORM_BODY_LIMIT_KB}kb`, parameterLimit: 50 }),
  );
  // after the body is read: its stream's callbacks would not carry the request's origin
  app.use(clientOrigin());

  const router = express.Router();
  // Before the link routes: /sign-in/passkey and /sign-in/sso are not link tokens.
  registerPasskeys(router, deps);
  registerPasskeySignIn(router, deps);
  registerSsoSignIn(router, deps);
  registerSignIn(router, deps);
  registerBrands(router, deps.clients);
  registerSessions(router, deps.clients);
  registerInvitations(router, deps.clients);
  registerBrandPages(router, deps);
  app.use(router);
  // an address no route took: 404, with the person's header when they are signed in
  app.use(notFoundPage(deps.clients));
  app.use(errorPages(deps.log, deps.publicOrigin));
  return app;
}
