import type * as Jose from 'jose' with { 'resolution-mode': 'import' };
import { LRUCache } from 'lru-cache';
import { insertActivity } from '@brand/shared/activity';
import { withTransaction, type Pool } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import type { Logger } from '@brand/shared/logger';
import type { SecretBox } from '@brand/shared/secrets';
import type { ProviderCache } from './oidcClient';
import { providerFetch } from './provider/providerFetch';
import type { ProviderPolicy } from './provider/providerPolicy';
import { providerClientOf } from './providerClient';
import type { LogoutTokenLedger } from './logoutTokenLedger';
import { endSsoSessions } from './ssoSessionRepo';
import { firstCharacters } from '@brand/shared/text';

/** The event a logout token must carry (OpenID Connect Back-Channel Logout 1.0, 2.4). */
const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** Logout tokens are small; anything longer is refused before any parsing. */
const MAX_TOKEN_LENGTH = 16 * 1024;
/** A logout token older than this (by its iat) is refused: a replay, or a clock far off. */
const MAX_TOKEN_AGE = '10 minutes';
/** Signatures records accepts: asymmetric only (a client secret is not a provider's voice). */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

let loaded: Promise<typeof Jose> | undefined;
/** jose is an ES module and records is CommonJS: loaded with import() on first use. */
const jose = (): Promise<typeof Jose> => (loaded ??= import('jose'));

export interface BackchannelDeps {
  pool: Pool;
  log: Logger;
  box: SecretBox | undefined;
  providers: ProviderCache;
  providerPolicy: ProviderPolicy;
  /** Tokens used once already (by jti); a replay is refused. */
  logoutTokens: LogoutTokenLedger;
}

/** What a verified logout token names: whom to sign out, and the token's id and issue time. */
interface LogoutClaims {
  sub: string | null;
  sid: string | null;
  jti: string;
  /** Seconds since the epoch. */
  iat: number;
  /** Seconds since the epoch, when the token says. */
  exp: number | undefined;
}

/** How long a token may pass verification after it was issued (MAX_TOKEN_AGE plus the skew). */
const TOKEN_LIFETIME_MS = (10 * 60 + 60) * 1_000;

const invalid = (why: string): AppError =>
  new AppError('invalid_logout_token', `The logout token was refused: ${why}.`);

/**
 * The key sets of providers, read under the egress policy, kept a while (logouts are rare).
 * Bounded: a brand's own provider can name a new key-set address at every discovery, and each
 * logout then read and kept one more (up to 256 KiB each), for ever; records, which every brand
 * shares, ran out of memory after a few thousand (a review, 2026-11-29). The least recently used
 * go first past KEY_SETS_KEPT.
 */
const KEY_SETS_KEPT = 200;
const keySets = new LRUCache<string, { at: number; jwks: Jose.JSONWebKeySet }>({
  max: KEY_SETS_KEPT,
});
const KEY_SET_TTL_MS = 10 * 60_000;
/** An unknown key id reads the set again, at most this often per provider. */
const KEY_SET_REFRESH_MS = 30_000;

async function keySetOf(
  policy: ProviderPolicy,
  issuer: string,
  jwksUri: string,
  fresh: boolean,
): Promise<Jose.JSONWebKeySet> {
  const hit = keySets.get(jwksUri);
  const age = hit ? Date.now() - hit.at : Infinity;
  if (hit && age < (fresh ? KEY_SET_REFRESH_MS : KEY_SET_TTL_MS)) return hit.jwks;
  const res = await providerFetch(policy, new URL(issuer))(jwksUri, {
    method: 'GET',
    headers: { accept: 'application/json' },
  });
  if (!res.ok) throw invalid(`the provider's key set answered ${res.status}`);
  const jwks = (await res.json()) as Jose.JSONWebKeySet;
  if (!Array.isArray(jwks.keys)) throw invalid('the provider answered no key set');
  keySets.set(jwksUri, { at: Date.now(), jwks });
  return jwks;
}

interface Connection {
  brand_id: string;
  issuer: string;
  client_id: string;
  client_secret_ciphertext: Buffer;
  client_secret_key_id: string;
}

/**
 * Verifies a logout token for one connection: its signature against the issuer's JWKS (the
 * jwks_uri of its discovery document, which passed the egress policy), iss, aud, iat (and
 * exp when present), typ when present, the back-channel logout event, sub or sid, and no nonce
 * (so an ID token can never pass as a logout token). Answers what to end.
 */
async function verifyFor(
  deps: BackchannelDeps & { box: SecretBox },
  c: Connection,
  token: string,
): Promise<LogoutClaims> {
  const j = await jose();
  const config = await deps.providers.get(providerClientOf(deps.box, c));
  const jwksUri = config.serverMetadata().jwks_uri;
  if (!jwksUri) throw invalid('the provider publishes no key set');
  const verify = async (fresh: boolean) =>
    j.jwtVerify(
      token,
      j.createLocalJWKSet(await keySetOf(deps.providerPolicy, c.issuer, jwksUri, fresh)),
      {
        issuer: c.issuer,
        audience: c.client_id,
        algorithms: ALGORITHMS,
        requiredClaims: ['iat', 'jti', 'events'],
        maxTokenAge: MAX_TOKEN_AGE,
        clockTolerance: 60,
      },
    );
  let verified: Jose.JWTVerifyResult;
  try {
    verified = await verify(false);
  } catch (err) {
    if (!(err instanceof j.errors.JWKSNoMatchingKey)) throw err;
    verified = await verify(true); // the provider may have rotated its keys
  }
  const { payload, protectedHeader } = verified;
  if (
    protectedHeader.typ !== undefined &&
    !/^(application\/)?(logout\+jwt|JWT)$/i.test(protectedHeader.typ)
  ) {
    throw invalid(`typ ${protectedHeader.typ} is not a logout token`);
  }
  const events = payload.events as Record<string, unknown> | undefined;
  const event = events && typeof events === 'object' ? events[LOGOUT_EVENT] : undefined;
  if (!event || typeof event !== 'object' || Array.isArray(event)) {
    throw invalid('it carries no back-channel logout event');
  }
  if ('nonce' in payload) throw invalid('it carries a nonce (an ID token?)');
  const sub = typeof payload.sub === 'string' && payload.sub !== '' ? payload.sub : null;
  const sid = typeof payload.sid === 'string' && payload.sid !== '' ? payload.sid : null;
  if (sub === null && sid === null) throw invalid('it names neither sub nor sid');
  if (typeof payload.jti !== 'string' || payload.jti === '') throw invalid('it has no jti');
  return { sub, sid, jti: payload.jti, iat: payload.iat!, exp: payload.exp };
}

/** How long from now the token could still pass: until its exp, or its iat plus the max age. */
function remainingLifetimeMs(claims: LogoutClaims): number {
  const until = Math.max(
    claims.iat * 1_000 + TOKEN_LIFETIME_MS,
    claims.exp === undefined ? 0 : claims.exp * 1_000 + 60_000,
  );
  return until - Date.now();
}

/**
 * OpenID Connect Back-Channel Logout: the provider says a person's session there ended, so
 * their single sign-on sessions of the brand (the connection whose issuer and client id the
 * token names) end here too, each recorded as member.session_ended. Answers how many ended.
 * Every refusal is invalid_logout_token (the console answers the provider 400).
 */
export async function ssoBackchannelLogout(
  deps: BackchannelDeps,
  input: { logoutToken: string },
): Promise<number> {
  const token = input.logoutToken.trim();
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) throw invalid('not a token');
  const box = deps.box;
  if (!box) throw invalid('single sign-on is not configured here');
  const j = await jose();
  let claims: Jose.JWTPayload;
  try {
    claims = j.decodeJwt(token); // unverified: only to find the connection to verify it for
  } catch {
    throw invalid('not a JWT');
  }
  const audiences = [claims.aud ?? []].flat().filter((a) => typeof a === 'string');
  if (typeof claims.iss !== 'string' || audiences.length === 0) {
    throw invalid('it names no issuer or audience');
  }
  const { rows: connections } = await deps.pool.query<Connection>(
    `select brand_id, issuer, client_id, client_secret_ciphertext, client_secret_key_id
     from sso_connections where issuer = $1 and client_id = any($2::text[]) and enabled`,
    [claims.iss, audiences],
  );
  if (connections.length === 0) throw invalid('no brand uses this issuer and client');
  let ended = 0;
  let verifiedOnce = false;
  let lastRefusal: unknown;
  for (const c of connections) {
    let who: LogoutClaims;
    try {
      who = await verifyFor({ ...deps, box }, c, token);
      // Once per token (issue 59 part 5): a replay within its lifetime ends nothing.
      if (
        !verifiedOnce &&
        !(await deps.logoutTokens.firstUse(c.issuer, who.jti, remainingLifetimeMs(who)))
      ) {
        throw invalid('it was used before');
      }
    } catch (err) {
      lastRefusal = err;
      deps.log.info(
        { brand_id: c.brand_id, reason: firstCharacters(String(err), 300) },
        'logout token refused',
      );
      continue;
    }
    ended += await withTransaction(deps.pool, async (db) => {
      const sessions = await endSsoSessions(db, {
        brandId: c.brand_id,
        subject: who.sub,
        sid: who.sid,
        issuedAt: who.iat,
      });
      for (const s of sessions) {
        await insertActivity(db, {
          brandId: c.brand_id,
          action: 'member.session_ended',
          actorMemberId: '',
          actorEmail: 'identity provider',
          subjectId: '',
          summary: `The identity provider signed ${s.email} out (back-channel logout); the single sign-on session ended`,
        });
      }
      return sessions.length;
    });
    verifiedOnce = true;
    deps.log.info({ brand_id: c.brand_id, ended }, 'back-channel logout');
  }
  if (!verifiedOnce) {
    throw lastRefusal instanceof AppError
      ? lastRefusal
      : invalid('its signature or claims did not pass');
  }
  return ended;
}
