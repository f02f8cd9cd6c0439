import type { Response, Router } from 'express';
import { z } from 'zod';
import { roleAllows } from '@brand/shared/console';
import { ROLES } from '@brand/shared/enums';
import type { ConsoleDeps } from '../../consoleDeps';
import { runFormChange } from '../../http/formChange';
import { memberOf, notFound, viewerOf, type MemberSession } from '../../session/memberSession';
import { doneNoticeOf } from '../../views/doneNotice';
import { sendPage } from '../../views/render';
import { SignInPolicyForm } from '../passkeys/input';
import { isLastOwner } from './lastOwner';
import { MembersNotAllowedPage, MembersPage, RemoveMemberPage } from './view';

const InviteForm = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254, 'An email address is at most 254 characters.')
    .pipe(z.email('Enter an email address.')),
  role: z.enum(ROLES.names, 'Choose a role.'),
});
const RoleForm = z.object({ role: z.enum(ROLES.names, 'Choose a role.') });
const MEMBER_ID = /^mem_[A-Za-z0-9]{1,64}$/;
const INVITATION_ID = /^inv_[A-Za-z0-9]{1,64}$/;

/**
 * Members (owners only): list, invite (records mails the invitation; the person becomes a member
 * only by accepting it, issue 59), withdraw an invitation, change role, remove (asked first, as
 * revoking a key; never offered for the last owner). Records keeps the last owner from being
 * removed or demoted and says so.
 */
export function registerMembers(router: Router, deps: ConsoleDeps): void {
  const listPage = async (
    res: Response,
    s: MemberSession,
    extra: {
      error?: string;
      notice?: string;
      /** The address just removed, named in the notice unless it is a member after all. */
      removed?: string;
      form?: { email?: string; role?: string };
    } = {},
    httpStatus = 200,
  ) => {
    const [{ members }, { invitations }] = await Promise.all([
      deps.clients.access('listMembers', { brand_id: s.brand.id }, { assertion: s.assertion }),
      deps.clients.invitations(
        'listBrandInvitations',
        { brand_id: s.brand.id },
        { assertion: s.assertion },
      ),
    ]);
    const { removed, ...shown } = extra;
    // The address comes from the URL: a link cannot make the page call a member removed.
    const removedNotice =
      removed !== undefined && !members.some((m) => m.email === removed)
        ? `Removed ${removed} from ${s.brand.name}. Their next request for this brand is refused.`
        : undefined;
    sendPage(
      res,
      MembersPage({
        viewer: viewerOf(s),
        members,
        invitations,
        signInPolicy: s.brand.sign_in_policy,
        ...shown,
        notice: removedNotice ?? shown.notice,
      }),
      httpStatus,
    );
  };

  /** The member named in the path, read from the brand's list (404 if not one of its members). */
  const pathMember = async (memberId: string, s: MemberSession) => {
    if (!MEMBER_ID.test(memberId)) throw notFound();
    const { members } = await deps.clients.access(
      'listMembers',
      { brand_id: s.brand.id },
      { assertion: s.assertion },
    );
    const member = members.find((m) => m.id === memberId);
    if (!member) throw notFound();
    return { member, lastOwner: isLastOwner(member, members) };
  };

  /** Runs a change, then shows the list with the outcome (the service's refusal on the form). */
  const change = (res: Response, s: MemberSession, run: () => Promise<unknown>, done: string) =>
    runFormChange(res, run, {
      doneUrl: `/brands/${s.brand.id}/members?done=${done}`,
      refused: (error, httpStatus) => listPage(res, s, { error }, httpStatus),
    });

  router.get('/members', async (req, res) => {
    const s = memberOf(res);
    if (!roleAllows(s.role, 'members.read')) {
      sendPage(res, MembersNotAllowedPage({ viewer: viewerOf(s) }), 403);
      return;
    }
    const notices: Record<string, string> = {
      invited:
        'Invited: an invitation is on its way to them. They become a member once they accept it.',
      withdrawn: 'Invitation withdrawn: its link no longer works.',
      role: 'Role changed.',
      removed: 'Member removed. Their next request for this brand is refused.',
      policy: 'Saved: how members sign in to this brand.',
    };
    const done = doneNoticeOf(notices, req.query.done);
    const removed =
      req.query.done === 'removed' && typeof req.query.who === 'string'
        ? req.query.who.slice(0, 254)
        : undefined;
    await listPage(res, s, { notice: done, removed });
  });

  router.post('/members', async (req, res) => {
    const s = memberOf(res);
    const body = req.body as Record<string, unknown>;
    const parsed = InviteForm.safeParse(body);
    const form = { email: typeof body.email === 'string' ? body.email.slice(0, 254) : '' };
    if (!parsed.success) {
      await listPage(res, s, { form, error: parsed.error.issues[0]?.message }, 400);
      return;
    }
    await change(
      res,
      s,
      () =>
        deps.clients.access(
          'inviteMember',
          { brand_id: s.brand.id, email: parsed.data.email, role: ROLES.toProto(parsed.data.role) },
          { assertion: s.assertion },
        ),
      'invited',
    );
  });

  router.post('/members/invitations/:invitationId/withdraw', async (req, res) => {
    const s = memberOf(res);
    const invitationId = String(req.params.invitationId);
    if (!INVITATION_ID.test(invitationId)) throw notFound();
    await change(
      res,
      s,
      () =>
        deps.clients.invitations(
          'withdrawInvitation',
          { invitation_id: invitationId },
          { assertion: s.assertion },
        ),
      'withdrawn',
    );
  });

  router.post('/members/sign-in-policy', async (req, res) => {
    const s = memberOf(res);
    const parsed = SignInPolicyForm.safeParse(req.body);
    if (!parsed.success) {
      await listPage(res, s, { error: parsed.error.issues[0]?.message }, 400);
      return;
    }
    await change(
      res,
      s,
      () =>
        deps.clients.passkeys('setBrandSignInPolicy', {
          session_token: s.token,
          brand_id: s.brand.id,
          policy: parsed.data.policy,
        }),
      'policy',
    );
  });

  router.post('/members/:memberId/role', async (req, res) => {
    const s = memberOf(res);
    const memberId = String(req.params.memberId);
    if (!MEMBER_ID.test(memberId)) throw notFound();
    const parsed = RoleForm.safeParse(req.body);
    if (!parsed.success) {
      await listPage(res, s, { error: parsed.error.issues[0]?.message }, 400);
      return;
    }
    await change(
      res,
      s,
      () =>
        deps.clients.access(
          'changeMemberRole',
          { member_id: memberId, role: ROLES.toProto(parsed.data.role) },
          { assertion: s.assertion },
        ),
      'role',
    );
  });

  router.get('/members/:memberId/remove', async (req, res) => {
    const s = memberOf(res);
    if (!roleAllows(s.role, 'members.read')) throw notFound();
    const { member, lastOwner } = await pathMember(String(req.params.memberId), s);
    sendPage(res, RemoveMemberPage({ viewer: viewerOf(s), member, lastOwner }));
  });

  router.post('/members/:memberId/remove', async (req, res) => {
    const s = memberOf(res);
    const { member } = await pathMember(String(req.params.memberId), s);
    // Records refuses the last owner itself (the page offers no button for it).
    await change(
      res,
      s,
      () =>
        deps.clients.access('removeMember', { member_id: member.id }, { assertion: s.assertion }),
      `removed&who=${encodeURIComponent(member.email)}`,
    );
  });
}
