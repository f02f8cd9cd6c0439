import { createHash } from 'node:crypto';
import type { Response, Router } from 'express';
import { z } from 'zod';
import { roleAllows } from '@brand/shared/console';
import { ROLES } from '@brand/shared/enums';
import type { ConsoleDeps } from '../../consoleDeps';
import { formRefusal } from '../../http/formRefusal';
import { memberOf, notFound, viewerOf, type MemberSession } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { SignInPolicyForm } from '../passkeys/input';
import { MembersNotAllowedPage, MembersPage } from './view';

const InviteForm = z.object({
  email: z.string().trim().toLowerCase().max(254).pipe(z.email('Enter an email address.')),
  role: z.enum(ROLES.names, 'Choose a role.'),
});
const RoleForm = z.object({ role: z.enum(ROLES.names, 'Choose a role.') });
const MEMBER_ID = /^mem_[A-Za-z0-9]{1,64}$/;

/**
 * Members (owners only): list, invite (then a sign-in link is mailed), change role, remove.
 * Records keeps the last owner from being removed or demoted and says so.
 */
export function registerMembers(router: Router, deps: ConsoleDeps): void {
  const listPage = async (
    res: Response,
    s: MemberSession,
    extra: { error?: string; notice?: string; form?: { email?: string; role?: string } } = {},
    httpStatus = 200,
  ) => {
    const { members } = await deps.clients.access(
      'listMembers',
      { brand_id: s.brand.id },
      { assertion: s.assertion },
    );
    sendPage(
      res,
      MembersPage({ viewer: viewerOf(s), members, signInPolicy: s.brand.sign_in_policy, ...extra }),
      httpStatus,
    );
  };

  /** Runs a change, then shows the list with the outcome (the service's refusal on the form). */
  const change = async (
    res: Response,
    s: MemberSession,
    run: () => Promise<unknown>,
    done: string,
  ) => {
    try {
      await run();
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await listPage(res, s, { error: refused.message }, refused.httpStatus);
      return;
    }
    res.redirect(303, `/brands/${s.brand.id}/members?done=${done}`);
  };

  router.get('/members', async (req, res) => {
    const s = memberOf(res);
    if (!roleAllows(s.role, 'members.read')) {
      sendPage(res, MembersNotAllowedPage({ viewer: viewerOf(s) }), 403);
      return;
    }
    const notices: Record<string, string> = {
      invited: 'Invited: a sign-in link is on its way to them.',
      role: 'Role changed.',
      removed: 'Member removed. Their next request is refused.',
      policy: 'Saved: how members sign in to this brand.',
    };
    const done = typeof req.query.done === 'string' ? notices[req.query.done] : undefined;
    await listPage(res, s, { notice: done });
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
      async () => {
        await deps.clients.access(
          'inviteMember',
          { brand_id: s.brand.id, email: parsed.data.email, role: ROLES.toProto(parsed.data.role) },
          { assertion: s.assertion },
        );
        await requestInviteLink(deps, parsed.data.email, s);
      },
      'invited',
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

  router.post('/members/:memberId/remove', async (req, res) => {
    const s = memberOf(res);
    const memberId = String(req.params.memberId);
    if (!MEMBER_ID.test(memberId)) throw notFound();
    await change(
      res,
      s,
      () =>
        deps.clients.access('removeMember', { member_id: memberId }, { assertion: s.assertion }),
      'removed',
    );
  });
}

/**
 * An invited member is mailed a sign-in link like anyone who asks (the sign-in mail loop
 * sends it); a refused request (the inviter's own limit) is only logged: the
 * invitation stands and the member can ask for a link themselves.
 */
async function requestInviteLink(
  deps: ConsoleDeps,
  email: string,
  s: MemberSession,
): Promise<void> {
  try {
    await deps.clients.sessions('requestSignInLink', {
      email,
      client_key: createHash('sha256').update(`invite:${s.member.id}`).digest('base64url'),
    });
  } catch (err) {
    deps.log.warn({ err }, 'no sign-in link could be requested for the invited member');
  }
}
