// A local OpenID provider for the local stack and the tests (issue 37, single sign-on): the
// certified oidc-provider, on 127.0.0.1, with a login form of its own and users read from a
// JSON file on every login and every token (so a test can add and delete people while it
// runs). Not for production: plain http on loopback, keys made at start, memory storage.
//
//   node scripts/dev-idp/devIdp.mjs <config.json>   (or DEV_IDP_CONFIG=<config.json>)
//
// config.json: { "port": 0, "clients": [{ "client_id", "client_secret", "redirect_uris": [],
//                 "backchannel_logout_uri"?: "<the console's /sign-in/sso/backchannel-logout>" }],
//               "usersFile": "<path>", "logRequests"?: false }
//
// Sessions that end when the person leaves (issue 42): every client may use refresh tokens
// (issued without offline_access, so the console's re-check has one; a user removed from the
// file gets invalid_grant), and OpenID Connect Back-Channel Logout is on: signing out at the
// provider's end_session endpoint, or POST /dev/backchannel-logout {"email"} (this local
// provider's own trigger, what an administrator's "sign this person out everywhere" does),
// sends each client with a backchannel_logout_uri a signed logout_token for that person.
// usersFile:   { "users": [{ "email", "password", "email_verified"?: true, "sub"?: email,
//                            "groups"?: ["..."] }] }
// Prints one JSON line {"msg":"listening","port":<port>,"issuer":"http://127.0.0.1:<port>"}
// once it serves; with logRequests, one {"msg":"request","method","path"} line per request
// (the tests count what a sign-in asked of its provider).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import Provider, { interactionPolicy } from 'oidc-provider';

const config = JSON.parse(readFileSync(process.argv[2] ?? process.env.DEV_IDP_CONFIG, 'utf8'));

/** The users as the file says now; a user removed from it no longer exists here. */
function users() {
  const { users: list } = JSON.parse(readFileSync(config.usersFile, 'utf8'));
  return list.map((u) => ({ sub: u.sub ?? u.email, email_verified: true, ...u }));
}

const escapeHtml = (s) =>
  String(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
  );

function loginPage(uid, { hint = '', error = '' } = {}) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Sign in: local identity provider</title></head><body>
<main><h1>Local identity provider</h1>
<p>Sign in with a user of this provider (the local stack prints the demo user).</p>
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<p><label for="email">Email</label> <input id="email" name="email" type="email" value="${escapeHtml(hint)}" required></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password" required></p>
<p><button type="submit">Sign in</button></p>
</form></main></body></html>`;
}

async function formOf(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return Object.fromEntries(new URLSearchParams(body));
}

// A person whose account was deleted while their session here lives must sign in again (and
// cannot): without this check oidc-provider would go on to consent with no account and fail.
const policy = interactionPolicy.base();
policy
  .get('login')
  .checks.add(
    new interactionPolicy.Check('account_gone', 'the account no longer exists', (ctx) =>
      ctx.oidc.session.accountId && !ctx.oidc.account
        ? interactionPolicy.Check.REQUEST_PROMPT
        : interactionPolicy.Check.NO_NEED_TO_PROMPT,
    ),
  );

const server = createServer();
server.listen(config.port ?? 0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: config.clients.map((c) => ({
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      ...c,
    })),
    async findAccount(_ctx, sub) {
      const user = users().find((u) => u.sub === sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          email: user.email,
          email_verified: user.email_verified,
          ...(user.groups ? { groups: user.groups } : {}),
        }),
      };
    },
    // "groups" with openid, as a provider configured with a groups claim for the app sends it
    // (Okta's groups claim, Entra ID's groups): just-in-time membership reads it.
    claims: { openid: ['sub', 'groups'], email: ['email', 'email_verified'] },
    // The email goes into the ID token too (openid-client reads it there, or at userinfo).
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    features: {
      devInteractions: { enabled: false },
      backchannelLogout: { enabled: true },
    },
    // The console it sends logout tokens to is on loopback too: oidc-provider's own guard
    // against special-use addresses (its dispatcher) is dropped here, in this local provider
    // only, whose every client is the local console.
    fetch: (url, options) => {
      const { dispatcher: _guard, ...rest } = options;
      return fetch(url, rest);
    },
    // A refresh token for every client allowed the grant, not only with offline_access: the
    // console re-checks its sessions with it.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    interactions: { policy, url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    renderError(ctx, out, error) {
      process.stderr.write(
        `${JSON.stringify({ msg: 'error page', out, error: String(error), stack: error?.stack })}\n`,
      );
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>Error</title><h1>${escapeHtml(out.error)}</h1><p>${escapeHtml(out.error_description ?? '')}</p>`;
    },
    // First-party clients: no consent screen, the grant is made at once.
    async loadExistingGrant(ctx) {
      const grantId =
        ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope('openid email');
      await grant.save();
      return grant;
    },
  });
  const oidc = provider.callback();
  server.on('request', (req, res) => {
    if (config.logRequests)
      process.stdout.write(
        `${JSON.stringify({ msg: 'request', method: req.method, path: req.url.split('?')[0] })}\n`,
      );
    if (req.method === 'POST' && req.url === '/dev/backchannel-logout') {
      void backchannelLogout(provider, req, res);
      return;
    }
    const m = /^\/interaction\/([A-Za-z0-9_-]+)(\/login)?$/.exec(req.url.split('?')[0]);
    if (!m) return oidc(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(loginPage(details.uid, { hint: details.params.login_hint ?? '' }));
        return;
      }
      const form = await formOf(req);
      const user = users().find(
        (u) => u.email === form.email && u.password !== undefined && u.password === form.password,
      );
      if (!user) {
        res.writeHead(401, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          loginPage(details.uid, { hint: form.email, error: 'No such user, or a wrong password.' }),
        );
        return;
      }
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: user.sub } },
        { mergeWithLastSubmission: false },
      );
    })().catch((err) => {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`interaction failed: ${err.message}`);
    });
  });
  const port = server.address().port;
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port, issuer })}\n`);
});

/**
 * POST /dev/backchannel-logout {"email"}: sends a logout_token for that person (their sub) to
 * every client that registered a backchannel_logout_uri; answers {"sent":[client ids],
 * "failed":[{client_id, error}]}. The person need not exist any more (deleted, then signed out).
 */
async function backchannelLogout(provider, req, res) {
  let body = '';
  for await (const chunk of req) body += chunk;
  const { email, sub: given } = JSON.parse(body || '{}');
  const sub = given ?? users().find((u) => u.email === email)?.sub ?? email;
  const sent = [];
  const failed = [];
  for (const c of config.clients.filter((x) => x.backchannel_logout_uri)) {
    const client = await provider.Client.find(c.client_id);
    try {
      await client.backchannelLogout(sub, undefined);
      sent.push(c.client_id);
    } catch (err) {
      failed.push({ client_id: c.client_id, error: String(err.message ?? err) });
    }
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ sent, failed }));
}

for (const signal of ['SIGTERM', 'SIGINT'])
  process.on(signal, () => server.close(() => process.exit(0)));
