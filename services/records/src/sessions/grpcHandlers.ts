import type { BrandMembership, ConsoleSessionServiceServer } from '@brand/proto/access/v1/sessions';
import type { RpcBuilder } from '@brand/shared/grpc';
import type { Membership } from '../access/memberRepo';
import { listOwnerEmails } from '../access/memberService';
import { toBrand, toMember } from '../access/toProto';
import type { SessionDeps } from './sessionDeps';
import { toOpenedResponse } from './openSession';
import { boundedClient } from './signInClient';
import { endOneSession, endOtherSessions, listSessions } from './sessionListService';
import { resolveSession, signOut, signOutEverywhere } from './sessionService';
import { claimSignInMails, completeSignInMails, requestSignInLink } from './signInRequestService';
import { describeSignInLink, redeemSignInLink } from './signInService';

const toMembership = (m: Membership): BrandMembership => ({
  brand: toBrand(m.brand),
  member: toMember(m.member),
});

/**
 * The ConsoleSessionService: signing members in, keeping their sessions, and the owners to
 * mail about a brand; the console only.
 */
export function sessionHandlers(deps: SessionDeps, rpc: RpcBuilder): ConsoleSessionServiceServer {
  return {
    requestSignInLink: rpc.console('RequestSignInLink', async (req) => {
      await requestSignInLink(deps, { email: req.email, clientKey: req.client_key });
      return {};
    }),

    claimSignInMails: rpc.console('ClaimSignInMails', async (req) => ({
      mails: (await claimSignInMails(deps, { maxMails: req.max_mails })).map((m) => ({
        claim_id: m.claimId,
        email: m.email,
        token: m.token,
        expires_at: m.expiresAt,
        sso_only_brands: m.ssoOnlyBrands.map((b) => ({ brand_id: b.id, brand_name: b.name })),
      })),
    })),

    completeSignInMails: rpc.console('CompleteSignInMails', async (req) => {
      await completeSignInMails(deps, { claimIds: req.claim_ids });
      return {};
    }),

    describeSignInLink: rpc.console('DescribeSignInLink', async (req) => ({
      email: await describeSignInLink(deps, req.token),
    })),
    redeemSignInLink: rpc.console('RedeemSignInLink', async (req) => {
      const opened = await redeemSignInLink(deps, {
        token: req.token,
        client: boundedClient(req.client),
      });
      return toOpenedResponse(opened);
    }),

    resolveConsoleSession: rpc.console('ResolveConsoleSession', async (req) => {
      const r = await resolveSession(deps, {
        sessionToken: req.session_token,
        brandId: req.brand_id,
      });
      return {
        email: r.session.email,
        csrf_secret: r.session.csrf_secret,
        brands: r.brands.map(toMembership),
        brand: r.acting ? toBrand(r.acting.brand) : undefined,
        member: r.acting ? toMember(r.acting.member) : undefined,
        member_assertion: r.acting?.assertion ?? '',
        member_assertion_expires_at: r.acting?.assertionExpiresAt.toISOString() ?? '',
        expires_at: r.session.expires_at.toISOString(),
        sign_in_method: r.session.sign_in_method,
        sso_brand_id: r.session.sso_brand_id ?? '',
      };
    }),

    signOut: rpc.console('SignOut', async (req) => {
      await signOut(deps, { sessionToken: req.session_token });
      return {};
    }),

    signOutEverywhere: rpc.console('SignOutEverywhere', async (req) => ({
      sessions_ended: await signOutEverywhere(deps, { sessionToken: req.session_token }),
    })),

    listConsoleSessions: rpc.console('ListConsoleSessions', async (req) => {
      const { currentId, sessions } = await listSessions(deps, { sessionToken: req.session_token });
      return {
        sessions: sessions.map((s) => ({
          id: s.id,
          user_agent: s.user_agent,
          address: s.client_address,
          sign_in_method: s.sign_in_method,
          signed_in_at: s.created_at.toISOString(),
          last_seen_at: s.last_seen_at.toISOString(),
          current: s.id === currentId,
        })),
      };
    }),

    endConsoleSession: rpc.console('EndConsoleSession', async (req) => {
      const r = await endOneSession(deps, {
        sessionToken: req.session_token,
        sessionId: req.session_id,
      });
      return { ended_current: r.endedCurrent };
    }),

    endOtherConsoleSessions: rpc.console('EndOtherConsoleSessions', async (req) => ({
      sessions_ended: await endOtherSessions(deps, { sessionToken: req.session_token }),
    })),

    listOwnerEmails: rpc.console('ListOwnerEmails', async (req) => {
      const owners = await listOwnerEmails(deps.pool, { brandId: req.brand_id });
      return { emails: owners.emails, brand_name: owners.brandName };
    }),
  };
}
