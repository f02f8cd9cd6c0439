import type { MemberInvitationServiceServer } from '@brand/proto/access/v1/invitations';
import type { RpcBuilder } from '@brand/shared/grpc';
import { claimMemberMails, completeMemberMails } from '../memberMails/memberMailService';
import type { SessionDeps } from '../sessions/sessionDeps';
import {
  answerInvitation,
  listBrandInvitations,
  showInvitation,
  withdrawInvitation,
} from './invitationService';
import { answerOwnInvitation, listOwnInvitations } from './ownInvitations';
import { toInvitation } from './toProto';

/**
 * The MemberInvitationService: a brand's invitations for its owners (the member assertion
 * decides), a person's answer by mailed link or from their own session, and the member mails
 * the console sends; the console only.
 */
export function invitationHandlers(
  deps: SessionDeps,
  rpc: RpcBuilder,
): MemberInvitationServiceServer {
  return {
    listBrandInvitations: rpc.developers('ListBrandInvitations', async (req, { actor }) => ({
      invitations: (await listBrandInvitations(deps.pool, actor, { brandId: req.brand_id })).map(
        toInvitation,
      ),
    })),

    withdrawInvitation: rpc.developers('WithdrawInvitation', async (req, { actor }) => ({
      invitation: toInvitation(
        await withdrawInvitation(deps.pool, actor, { invitationId: req.invitation_id }),
      ),
    })),

    showInvitation: rpc.console('ShowInvitation', async (req) => ({
      invitation: toInvitation(await showInvitation(deps.pool, { token: req.token })),
    })),

    answerInvitation: rpc.console('AnswerInvitation', async (req) => ({
      invitation: toInvitation(
        await answerInvitation(deps.pool, { token: req.token, accept: req.accept }),
      ),
    })),

    listOwnInvitations: rpc.console('ListOwnInvitations', async (req) => ({
      invitations: (await listOwnInvitations(deps, { sessionToken: req.session_token })).map(
        toInvitation,
      ),
    })),

    answerOwnInvitation: rpc.console('AnswerOwnInvitation', async (req) => ({
      invitation: toInvitation(
        await answerOwnInvitation(deps, {
          sessionToken: req.session_token,
          invitationId: req.invitation_id,
          accept: req.accept,
        }),
      ),
    })),

    claimMemberMails: rpc.console('ClaimMemberMails', async (req) => ({
      mails: (await claimMemberMails(deps.pool, { limit: req.limit, leaseMs: req.lease_ms })).map(
        (m) => ({
          id: m.id,
          kind: m.kind,
          email: m.email,
          brand_id: m.brand_id,
          brand_name: m.brand_name,
          invitation: m.invitation ? toInvitation(m.invitation) : undefined,
          token: m.token,
          issuer: m.details.issuer ?? '',
          set_by: m.details.setBy ?? '',
          domain: m.details.domain ?? '',
          fails_at: m.details.failsAt ?? '',
          passkey_name: m.details.passkeyName ?? '',
          session_method: m.details.sessionMethod ?? '',
        }),
      ),
    })),

    completeMemberMails: rpc.console('CompleteMemberMails', async (req) => {
      await completeMemberMails(deps.pool, { ids: req.ids });
      return {};
    }),
  };
}
