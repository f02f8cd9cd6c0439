import { insertActivity } from '@brand/shared/activity';
import { withTransaction, type Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import { startRecurringRounds, type RecurringRounds } from '@brand/shared/service';
import type { SecretBox } from '@brand/shared/secrets';
import { openIdClient, type ProviderCache } from './oidcClient';
import { providerClientOf } from './providerClient';
import { selectSsoConnection } from './ssoConnectionRepo';
import {
  claimSsoSessionsToCheck,
  endSsoSession,
  updateSsoTokens,
  type SsoSessionToCheck,
} from './ssoSessionRepo';
import { openTokens, sealTokens, tokensOf } from './ssoTokens';
import { firstCharacters } from '@brand/shared/text';

export interface SsoSessionCheckDeps {
  pool: Pool;
  log: Logger;
  box: SecretBox | undefined;
  providers: ProviderCache;
  /** Each live SSO session is checked again once it is this old since its last check. */
  intervalMs: number;
}

/** What asking the provider found: still there, gone (with why), or no answer this time. */
type Verdict =
  { kind: 'present' } | { kind: 'gone'; why: string } | { kind: 'unknown'; why: string };

/** Sessions checked per round at most; the rest wait for the next round. */
const BATCH = 100;
/** An access token this close to expiry is treated as expired (the request takes time). */
const EXPIRY_MARGIN_MS = 5_000;

/**
 * Asks the brand's provider whether the person behind one SSO session is still there: with the
 * refresh token when the provider issued one (a person deleted or disabled there gets
 * invalid_grant; the new tokens are kept), else at userinfo with the access token while it
 * lives. A provider that gives neither (no refresh token, the access token expired) can no
 * longer vouch for the session: it is gone. A provider that does not answer (down, slow,
 * refused by the egress policy) is "unknown": the session stays and is asked again next round,
 * so an outage at the provider does not sign every member out (the 12-hour limit still holds).
 */
async function askProvider(deps: SsoSessionCheckDeps, s: SsoSessionToCheck): Promise<Verdict> {
  const box = deps.box;
  if (!box) return { kind: 'unknown', why: 'no WEBHOOK_SECRET_KEY' };
  const connection = await selectSsoConnection(deps.pool, s.sso_brand_id);
  if (!connection?.enabled) return { kind: 'gone', why: 'single sign-on is off for the brand' };
  const tokens =
    s.sso_tokens_ciphertext && s.sso_tokens_key_id
      ? openTokens(box, s.sso_brand_id, {
          ciphertext: s.sso_tokens_ciphertext,
          keyId: s.sso_tokens_key_id,
        })
      : undefined;
  if (!tokens) return { kind: 'gone', why: 'no provider tokens to check with' };
  const oidc = await openIdClient();
  const client = providerClientOf(box, connection);
  try {
    const config = await deps.providers.get(client);
    if (tokens.refreshToken) {
      const answer = await oidc.refreshTokenGrant(config, tokens.refreshToken);
      const renewed = tokensOf(answer);
      await updateSsoTokens(
        deps.pool,
        s.id,
        sealTokens(box, s.sso_brand_id, {
          ...renewed,
          refreshToken: renewed.refreshToken ?? tokens.refreshToken,
        }),
      );
      return { kind: 'present' };
    }
    if ((tokens.accessExpiresAt ?? Infinity) - EXPIRY_MARGIN_MS > Date.now()) {
      await oidc.fetchUserInfo(config, tokens.accessToken, s.sso_subject);
      return { kind: 'present' };
    }
    return {
      kind: 'gone',
      why: 'the provider issued no refresh token and the access token expired',
    };
  } catch (err) {
    // The provider answered, and said no: an OAuth error (invalid_grant for a person removed
    // or a grant revoked) or a 401 from userinfo. Anything else is no answer.
    if (err instanceof oidc.ResponseBodyError) return { kind: 'gone', why: err.error };
    if (err instanceof oidc.WWWAuthenticateChallengeError) {
      return { kind: 'gone', why: `userinfo answered ${err.status}` };
    }
    deps.providers.forget(client);
    return {
      kind: 'unknown',
      why: err instanceof Error ? firstCharacters(err.message, 200) : String(err),
    };
  }
}

/** Ends a session the provider no longer vouches for, and says so in the brand's activity. */
async function endGone(
  deps: SsoSessionCheckDeps,
  s: SsoSessionToCheck,
  why: string,
): Promise<void> {
  await withTransaction(deps.pool, async (db) => {
    if (!(await endSsoSession(db, s.id))) return;
    await insertActivity(db, {
      brandId: s.sso_brand_id,
      action: 'member.session_ended',
      actorMemberId: '',
      actorEmail: 'identity provider',
      subjectId: '',
      summary: `The identity provider no longer signs ${s.email} in (${firstCharacters(why, 120)}); the single sign-on session ended`,
      origin: { clientAddress: '', userAgent: '' },
    });
  });
}

/** One round: every session due, in batches, each asked on its own (one failing stops none). */
async function checkSsoSessionsOnce(deps: SsoSessionCheckDeps): Promise<number> {
  let ended = 0;
  for (;;) {
    const due = await claimSsoSessionsToCheck(deps.pool, {
      intervalMs: deps.intervalMs,
      limit: BATCH,
    });
    for (const s of due) {
      const verdict = await askProvider(deps, s).catch((err: unknown): Verdict => ({
        kind: 'unknown',
        why: firstCharacters(String(err), 200),
      }));
      if (verdict.kind === 'gone') {
        await endGone(deps, s, verdict.why);
        ended += 1;
        deps.log.info(
          { session_id: s.id, brand_id: s.sso_brand_id, why: verdict.why },
          'SSO session ended by re-check',
        );
      } else if (verdict.kind === 'unknown') {
        deps.log.warn(
          { session_id: s.id, brand_id: s.sso_brand_id, why: verdict.why },
          'SSO re-check got no answer; asked again next round',
        );
      }
    }
    if (due.length < BATCH) return ended;
  }
}

/**
 * Re-checks SSO sessions with their provider every SSO_RECHECK_INTERVAL_MS (issue 42: a person
 * deleted at the provider kept the console for up to 12 hours). Rounds run a fifth of the
 * interval apart (1 s to 30 s), so a session is checked at most about that much after it is
 * due; claiming is one statement with SKIP LOCKED, so replicas share the work.
 */
export function startSsoSessionCheck(deps: SsoSessionCheckDeps): RecurringRounds {
  return startRecurringRounds(() => checkSsoSessionsOnce(deps), {
    everyMs: Math.min(30_000, Math.max(1_000, Math.floor(deps.intervalMs / 5))),
    log: deps.log,
    what: 'the SSO session re-check',
  });
}
