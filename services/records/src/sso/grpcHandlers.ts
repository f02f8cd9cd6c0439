import type { ConsoleSsoServiceServer, SsoConnection, SsoDomain } from '@brand/proto/access/v1/sso';
import type { Pool } from '@brand/shared/db';
import type { RpcBuilder } from '@brand/shared/grpc';
import { toOpenedResponse } from '../sessions/openSession';
import { boundedClient } from '../sessions/signInClient';
import { ssoBackchannelLogout, type BackchannelDeps } from './backchannelLogout';
import { endBrandSsoSession, listBrandSsoSessions } from './brandSsoSessions';
import { proofRecordName, proofRecordValue } from './domains/domainProof';
import { verifySsoDomain } from './domains/domainVerification';
import { selectSsoDomains, type SsoDomainRow } from './domains/ssoDomainRepo';
import { selectSsoConnection, type SsoConnectionRow } from './ssoConnectionRepo';
import {
  getSsoConnection,
  removeSsoConnection,
  setSsoConnection,
  type SsoConnectionDeps,
} from './ssoConnectionService';
import { beginSsoSignIn, finishSsoSignIn, type SsoSignInDeps } from './ssoSignIn';

/**
 * A domain as owners see it: its state and the record to publish (the token is no secret), and
 * for a verified domain whose record went missing, when it stops counting (`graceMs` after).
 */
const toDomain = (d: SsoDomainRow, graceMs: number): SsoDomain => ({
  domain: d.domain,
  state: d.state,
  record_name: proofRecordName(d.domain),
  record_value: proofRecordValue(d.token),
  checked_at: d.checked_at ?? '',
  verified_at: d.verified_at ?? '',
  problem: d.problem ?? '',
  proof_missing_since: d.proof_missing_since ?? '',
  fails_at: d.proof_missing_since
    ? new Date(Date.parse(d.proof_missing_since) + graceMs).toISOString()
    : '',
});

/** A connection as owners see it, with its domains: never the secret, sealed or not. */
async function toConnection(
  pool: Pool,
  c: SsoConnectionRow,
  graceMs: number,
): Promise<SsoConnection> {
  return {
    brand_id: c.brand_id,
    issuer: c.issuer,
    client_id: c.client_id,
    allowed_domains: c.allowed_domains,
    enabled: c.enabled,
    updated_at: c.updated_at,
    domains: (await selectSsoDomains(pool, c.brand_id)).map((d) => toDomain(d, graceMs)),
  };
}

/**
 * The ConsoleSsoService: a brand's identity provider and its domains (owners, through the
 * console, or operators) and signing in through it (the console only).
 */
export function ssoHandlers(
  deps: SsoSignInDeps & SsoConnectionDeps & Pick<BackchannelDeps, 'logoutTokens'>,
  rpc: RpcBuilder,
): ConsoleSsoServiceServer {
  return {
    getSsoConnection: rpc.developers('GetSsoConnection', async (req, { actor }) => {
      const got = await getSsoConnection(deps, actor, {
        brandId: req.brand_id,
        sessionToken: req.session_token,
      });
      return {
        connection: got.connection
          ? await toConnection(deps.pool, got.connection, deps.domainGraceMs)
          : undefined,
        change_proof: {
          required: got.proofRequired,
          fresh_until: got.freshUntil?.toISOString() ?? '',
        },
      };
    }),

    setSsoConnection: rpc.developers('SetSsoConnection', async (req, { actor }) => ({
      connection: await toConnection(
        deps.pool,
        await setSsoConnection(deps, actor, {
          brandId: req.brand_id,
          issuer: req.issuer,
          clientId: req.client_id,
          clientSecret: req.client_secret,
          allowedDomains: req.allowed_domains,
          enabled: req.enabled,
          sessionToken: req.session_token,
          ifUpdatedAt: req.if_updated_at || undefined,
        }),
        deps.domainGraceMs,
      ),
    })),

    removeSsoConnection: rpc.developers('RemoveSsoConnection', async (req, { actor }) => {
      await removeSsoConnection(deps, actor, {
        brandId: req.brand_id,
        sessionToken: req.session_token,
      });
      return {};
    }),

    verifySsoDomain: rpc.developers('VerifySsoDomain', async (req, { actor }) => {
      const domain = await verifySsoDomain(deps, actor, {
        brandId: req.brand_id,
        domain: req.domain,
      });
      const connection = await selectSsoConnection(deps.pool, domain.brand_id);
      return {
        connection: connection
          ? await toConnection(deps.pool, connection, deps.domainGraceMs)
          : undefined,
        domain: toDomain(domain, deps.domainGraceMs),
      };
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

    listBrandSsoSessions: rpc.developers('ListBrandSsoSessions', async (req, { actor }) => ({
      sessions: (
        await listBrandSsoSessions(deps, actor, {
          brandId: req.brand_id,
          sessionToken: req.session_token,
        })
      ).map((s) => ({
        id: s.id,
        email: s.email,
        member_id: s.member_id,
        user_agent: s.user_agent,
        address: s.client_address,
        signed_in_at: s.created_at.toISOString(),
        last_seen_at: s.last_seen_at.toISOString(),
        checked_at: s.sso_checked_at?.toISOString() ?? '',
        current: s.current,
      })),
    })),

    endBrandSsoSession: rpc.developers('EndBrandSsoSession', async (req, { actor }) => {
      const r = await endBrandSsoSession(deps, actor, {
        brandId: req.brand_id,
        sessionId: req.session_id,
        sessionToken: req.session_token,
      });
      return { ended_current: r.endedCurrent };
    }),

    ssoBackchannelLogout: rpc.console('SsoBackchannelLogout', async (req) => ({
      sessions_ended: await ssoBackchannelLogout(deps, { logoutToken: req.logout_token }),
    })),
  };
}
