import { createHash } from 'node:crypto';
import { withTransaction, type PoolClient } from '@brand/shared/db';
import { emailAddress } from '@brand/shared/console';
import { AppError } from '@brand/shared/errors';
import type { SecretBox } from '@brand/shared/secrets';
import { selectBrand } from '../access/brandRepo';
import { selectMemberships } from '../access/memberRepo';
import { applyJustInTime } from '../provisioning/jitMembership';
import { isEligible } from '../sessions/eligibility';
import { afterSessionOpened, openSession, type OpenedSession } from '../sessions/openSession';
import type { SessionDeps } from '../sessions/sessionDeps';
import type { SignInClient } from '../sessions/signInClient';
import { verifiedEmailOf } from './ssoClaims';
import { openIdClient, type ProviderCache, type ProviderClient } from './oidcClient';
import { providerRefusalIn } from './provider/providerFetch';
import { recordSignInRefused } from '../sessions/signInActivity';
import { providerClientOf } from './providerClient';
import { linkSsoSession } from './ssoSessionRepo';
import { sealTokens, tokensOf, type ProviderTokens } from './ssoTokens';
import { selectBrandVerifiedFor, selectVerifiedDomains } from './domains/ssoDomainRepo';
import { selectSsoConnection, type SsoConnectionRow } from './ssoConnectionRepo';
import {
  deleteExpiredSsoSignIns,
  insertPendingSsoSignIn,
  presentCodeOnce,
  takePendingSsoSignIn,
} from './ssoSignInRepo';
import { firstCharacters } from '@brand/shared/text';

/**
 * What signing in with SSO needs: sessions, the box that opens client secrets, and the
 * providers discovered under the deployment's egress policy (reused between a start and its
 * callback).
 */
export type SsoSignInDeps = SessionDeps & {
  box: SecretBox | undefined;
  providers: ProviderCache;
};

const BRAND_ID = /^br_[A-Za-z0-9]{1,64}$/;
/** The cookie value the console binds a sign-in to its browser with: 32 random bytes, base64url. */
const BINDING = /^[A-Za-z0-9_-]{43}$/;

/** Where the provider sends the browser back: one path under the console's public origin. */
const callbackUrlOf = (origin: string): string => `${origin}/sign-in/sso/callback`;

const bindingHash = (binding: string): Buffer => createHash('sha256').update(binding).digest();

const notConfigured = (): AppError =>
  new AppError(
    'sso_not_configured',
    'No brand has single sign-on for this address. Sign in with an emailed link, or use your brand’s single sign-on link.',
  );

/** Every refusal after the state was taken: one code; the reason goes to the log. */
const ssoRefused = (): AppError =>
  new AppError(
    'sso_refused',
    'Your identity provider did not sign you in to this brand. Check that you signed in with your work address, or ask a brand owner.',
  );

function checkOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new AppError('validation_failed', 'origin must be the console’s origin.');
  }
  if (url.origin !== origin) throw new AppError('validation_failed', 'origin must be an origin.');
  return origin;
}

/**
 * The connection a sign-in uses: the brand named (its SSO link), or the one brand that has
 * verified the address's domain. Only a verified domain routes: a brand that merely lists a
 * domain neither captures its people nor hides another brand's (issue 42). A connection with no
 * verified domain admits nobody, so it is not started either.
 */
async function connectionFor(
  deps: SsoSignInDeps,
  input: { email: string; brandId: string },
): Promise<SsoConnectionRow> {
  let brandId = input.brandId;
  if (brandId !== '') {
    if (!BRAND_ID.test(brandId)) throw notConfigured();
  } else {
    const parsed = emailAddress.safeParse(input.email);
    if (!parsed.success) throw new AppError('validation_failed', 'email: Enter an email address.');
    const domain = parsed.data.slice(parsed.data.lastIndexOf('@') + 1);
    brandId = (await selectBrandVerifiedFor(deps.pool, domain)) ?? '';
    if (brandId === '') throw notConfigured();
  }
  const c = await selectSsoConnection(deps.pool, brandId);
  if (!c?.enabled || (await selectVerifiedDomains(deps.pool, brandId)).length === 0) {
    throw notConfigured();
  }
  return c;
}

/**
 * Starts a single sign-on: finds the brand's connection, reads the provider's discovery
 * document, makes the state, the nonce and the PKCE verifier (openid-client's random values),
 * stores them bound to the browser (the hash of the console's cookie), ten minutes, single use,
 * and answers the provider's authorization URL (code flow, S256, login_hint). Rate limited per
 * client, since anyone may ask.
 */
export async function beginSsoSignIn(
  deps: SsoSignInDeps,
  input: { email: string; brandId: string; origin: string; binding: string; clientKey: string },
): Promise<{ authorizationUrl: string; brandName: string }> {
  const origin = checkOrigin(input.origin);
  if (!BINDING.test(input.binding)) {
    throw new AppError('validation_failed', 'browser_binding must be 32 random bytes.');
  }
  if (input.clientKey.length < 1 || input.clientKey.length > 128) {
    throw new AppError('validation_failed', 'client_key must be 1 to 128 characters.');
  }
  await deps.rateLimit.takeSsoStart(input.clientKey);
  const box = deps.box;
  if (!box) throw notConfigured();
  const connection = await connectionFor(deps, input);
  const brand = await selectBrand(deps.pool, connection.brand_id);
  if (!brand || !isEligible(brand)) throw notConfigured();

  const oidc = await openIdClient();
  let config;
  try {
    config = await deps.providers.get(providerClientOf(box, connection));
  } catch (err) {
    deps.log.warn({ err, brand_id: brand.id }, 'SSO issuer discovery failed');
    // A 4xx either way: what the provider answered is the brand's configuration, not a fault
    // of this service (issue 42: a hostile document made this a 500).
    const refused = providerRefusalIn(err);
    throw new AppError(
      'sso_provider_refused',
      refused
        ? `${brand.name}’s identity provider cannot be used: ${refused.message} Ask a brand owner to check single sign-on.`
        : `${brand.name}’s identity provider did not answer with a usable discovery document. Try again in a minute, or ask a brand owner.`,
    );
  }
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const redirectUri = callbackUrlOf(origin);
  const params: Record<string, string> = {
    redirect_uri: redirectUri,
    scope: 'openid email',
    response_type: 'code',
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  };
  const hint = emailAddress.safeParse(input.email);
  if (hint.success) params.login_hint = hint.data;
  await deleteExpiredSsoSignIns(deps.pool);
  await insertPendingSsoSignIn(deps.pool, {
    state,
    brand_id: brand.id,
    nonce,
    code_verifier: codeVerifier,
    redirect_uri: redirectUri,
    bindingHash: bindingHash(input.binding),
  });
  return {
    authorizationUrl: oidc.buildAuthorizationUrl(config, params).href,
    brandName: brand.name,
  };
}

/**
 * Finishes at the callback. The state is taken first (spent whatever follows; only by the
 * browser that started it); then openid-client checks the answer: the provider's error if
 * any, the issuer (RFC 9207 when advertised), the code exchanged with the PKCE verifier, and
 * the ID token's signature, issuer, audience, expiry and nonce. Then records requires a
 * verified email at one of the brand's verified domains that is a current member of that brand
 * (eligible now), and opens a session for that brand only.
 */
export async function finishSsoSignIn(
  deps: SsoSignInDeps,
  input: { origin: string; callbackUrl: string; binding: string; client: SignInClient },
): Promise<OpenedSession> {
  const origin = checkOrigin(input.origin);
  let callback: URL;
  try {
    callback = new URL(input.callbackUrl);
  } catch {
    throw invalidState();
  }
  if (`${callback.origin}${callback.pathname}` !== callbackUrlOf(origin)) throw invalidState();
  const state = callback.searchParams.get('state') ?? '';
  const pending =
    state !== '' && state.length <= 128 && BINDING.test(input.binding)
      ? await takePendingSsoSignIn(deps.pool, { state, bindingHash: bindingHash(input.binding) })
      : undefined;
  if (!pending) throw invalidState();

  const refuse = async (reason: string, email = '', memberId = ''): Promise<never> => {
    // the brand's activity says who was refused and why (issue 42: refusals went unrecorded)
    await recordSignInRefused(deps.pool, {
      brandId: pending.brand_id,
      memberId,
      email,
      method: 'sso',
      reason,
    });
    throw ssoRefused();
  };
  // A code is spent here once, whatever the state it comes with: the mix-up defence
  // (migration 0033). Every brand shares this callback, so a hostile brand's provider can send
  // a member's browser to another brand's provider with this state, receive that provider's
  // code in the token request below, and present it again under a state its owner started for
  // the other brand. Marked before any token endpoint sees the code.
  const code = callback.searchParams.get('code') ?? '';
  if (code !== '' && !(await presentCodeOnce(deps.pool, code))) {
    deps.log.warn({ brand_id: pending.brand_id }, 'SSO callback with a code already presented');
    return refuse('the authorization code was already presented (a mix-up attempt, or a replay).');
  }
  const connection = await selectSsoConnection(deps.pool, pending.brand_id);
  if (!connection?.enabled || !deps.box) return refuse('single sign-on is off for the brand.');
  const box = deps.box;
  const oidc = await openIdClient();
  let client: ProviderClient | undefined;
  let email: string;
  let claimed = '';
  let identity: { subject: string; sid: string | null; tokens: ProviderTokens };
  // the ID token's claims: just-in-time membership reads the groups claim there
  let idClaims: Record<string, unknown> = {};
  try {
    client = providerClientOf(box, connection);
    const config = await deps.providers.get(client);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: pending.code_verifier,
      expectedState: state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('no ID token');
    idClaims = claims;
    // A provider may keep the email out of the ID token and answer it at userinfo, for the
    // same subject (openid-client checks it is the ID token's).
    const fromUserInfo =
      claims.email === undefined
        ? await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)
        : undefined;
    const asserted = (fromUserInfo ?? claims) as { email?: unknown; email_verified?: unknown };
    claimed = emailAddress.safeParse(asserted.email).data ?? '';
    email = verifiedEmailOf(asserted, await selectVerifiedDomains(deps.pool, connection.brand_id));
    identity = {
      subject: claims.sub,
      sid: typeof claims.sid === 'string' && claims.sid.length <= 256 ? claims.sid : null,
      tokens: tokensOf(tokens),
    };
  } catch (err) {
    // read the provider afresh next time: it may have moved its endpoints or keys
    if (client) deps.providers.forget(client);
    const reason = reasonOf(err);
    deps.log.info({ reason, brand_id: pending.brand_id }, 'SSO sign-in refused');
    return refuse(refusalWords(reason), claimed);
  }

  const opened = await withTransaction(deps.pool, async (db) => {
    await justInTime(db, { brandId: pending.brand_id, email, claims: idClaims }, deps);
    const membership = (await selectMemberships(db, email)).find(
      (m) => m.brand.id === pending.brand_id,
    );
    if (!membership || !isEligible(membership.brand)) return membership ?? null;
    const session = await openSession(db, deps, {
      email,
      brands: [membership],
      method: 'sso',
      client: input.client,
      ssoBrandId: membership.brand.id,
    });
    // what back-channel logout and the re-check need (ssoSessionCheck.ts)
    await linkSsoSession(db, {
      sessionId: session.sessionId,
      subject: identity.subject,
      sid: identity.sid,
      tokens: sealTokens(box, membership.brand.id, identity.tokens),
    });
    return session;
  });
  if (opened === null || !('sessionToken' in opened)) {
    deps.log.info({ brand_id: pending.brand_id }, 'SSO sign-in refused: not a member');
    return refuse(
      opened === null
        ? 'the address is not a member of the brand.'
        : 'the brand cannot use the Developers area now (plan or verification).',
      email,
      opened?.member.id ?? '',
    );
  }
  afterSessionOpened(deps, opened);
  return opened;
}

/**
 * Just-in-time membership (issue 61) before the membership is read: a change that would leave
 * the brand without an owner is skipped (the person signs in with the role they had).
 */
async function justInTime(
  db: PoolClient,
  q: { brandId: string; email: string; claims: Record<string, unknown> },
  deps: Pick<SsoSignInDeps, 'log'>,
): Promise<void> {
  try {
    await applyJustInTime(db, q);
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'last_owner')) throw err;
    deps.log.warn({ brand_id: q.brandId }, 'just-in-time role change skipped: the last owner');
  }
}

/** The refusal as the brand's activity says it: what kind of check failed, never a token. */
function refusalWords(reason: string): string {
  if (/email not verified|no email/.test(reason)) {
    return 'the identity provider did not vouch for a verified email address.';
  }
  if (/domain .* not allowed/.test(reason)) {
    return 'the address is not at a domain the brand has verified.';
  }
  return `the identity provider’s answer did not pass the checks (${firstCharacters(reason, 160)}).`;
}

const invalidState = (): AppError =>
  new AppError(
    'invalid_sso_state',
    'This single sign-on cannot be finished here: it was finished already, took longer than ten minutes, or was started in another browser. Start again from the sign-in page.',
  );

/**
 * Why openid-client (or the claims check) refused, for the log: the error's name, code and
 * message only. Its `cause` can carry the provider's answer or the ID token's claims (an
 * address, a nonce), which the log never holds.
 */
function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return firstCharacters(String(err), 200);
  const code = (err as { code?: unknown }).code;
  return firstCharacters(
    `${err.name}${typeof code === 'string' ? ` ${code}` : ''}: ${err.message}`,
    300,
  );
}
