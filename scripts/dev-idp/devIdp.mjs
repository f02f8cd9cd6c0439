// A local OpenID provider for the local stack and the tests (issue 37, single sign-on): the
// certified oidc-provider, on 127.0.0.1, with a login form of its own and users read from a
// JSON file on every login and every token (so a test can add and delete people while it
// runs). Not for production: plain http on loopback, keys made at start, memory storage.
//
//   node scripts/dev-idp/devIdp.mjs <config.json>   (or DEV_IDP_CONFIG=<config.json>)
//
// config.json: { "port": 0, "clients": [{ "client_id", "client_secret", "redirect_uris": [] }],
//               "usersFile": "<path>", "logRequests"?: false }
// usersFile:   { "users": [{ "email", "password", "email_verified"?: true, "sub"?: email }] }
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
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      ...c,
    })),
    async findAccount(_ctx, sub) {
      const user = users().find((u) => u.sub === sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, email: user.email, email_verified: user.email_verified }),
      };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // The email goes into the ID token too (openid-client reads it there, or at userinfo).
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    features: { devInteractions: { enabled: false } },
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

for (const signal of ['SIGTERM', 'SIGINT'])
  process.on(signal, () => server.close(() => process.exit(0)));
