import type { Member, MemberInvitation } from '@brand/proto/access/v1';
import { ROLES } from '@brand/shared/enums';
import { formatTime } from '../../views/format';
import { UtcTime } from '../../views/utcTime';
import { Csrf, Layout, Notice, type Viewer } from '../../views/layout';
import { signInMethodWords } from '../../views/signInMethod';
import { DataTable } from '../../views/dataTable';
import { PostButton } from '../../views/postButton';
import { isLastOwner } from './lastOwner';

/** How members may sign in (records' sign-in policy), in the owner's words. */
const SIGN_IN_POLICIES = [
  ['any', 'An emailed link, a passkey or single sign-on'],
  ['passkey_or_sso', 'A passkey or single sign-on: emailed links no longer open this brand'],
  ['sso', 'Single sign-on only: neither emailed links nor passkeys open this brand'],
] as const;

const ROLE_HELP =
  'Owners do everything here (keys, receivers, plans, members). Admins and members see keys, receivers, deliveries and plans, and change nothing.';

export function MembersPage(props: {
  viewer: Viewer;
  members: Member[];
  /** Open invitations: pending (not members yet) or expired. */
  invitations: MemberInvitation[];
  /** The brand's sign-in policy: "any", "passkey_or_sso" or "sso". */
  signInPolicy: string;
  error?: string;
  notice?: string;
  form?: { email?: string; role?: string };
}) {
  const { viewer } = props;
  const base = `/brands/${viewer.brandId}/members`;
  return (
    <Layout title="Members" viewer={viewer} section="members">
      <h1>Members</h1>
      <p>{ROLE_HELP}</p>
      <p>
        <a href={`/brands/${viewer.brandId}/members/sessions`}>Members’ sessions</a>: see and sign
        out the browsers signed in through the brand’s single sign-on.
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      <DataTable
        label="Members"
        caption={<>Members of {viewer.brandName}</>}
        columns={['Email', 'Role', 'Member since', 'Last used this brand', 'Actions']}
      >
        {props.members.map((m) => {
          const role = ROLES.fromProto(m.role) ?? 'member';
          return (
            <tr>
              <td>{m.email}</td>
              <td>
                {m.managed_by ? (
                  <>
                    {role}{' '}
                    <span class="hint">
                      (from the identity provider’s groups,{' '}
                      {m.managed_by === 'scim' ? 'SCIM' : 'at sign-in'}:{' '}
                      <a href={`/brands/${viewer.brandId}/provisioning`}>Provisioning</a>)
                    </span>
                  </>
                ) : (
                  <form class="actions" method="post" action={`${base}/${m.id}/role`}>
                    <Csrf token={viewer.csrfToken} />
                    <label for={`role-${m.id}`} class="visually-hidden">
                      Role of {m.email}
                    </label>
                    <select id={`role-${m.id}`} name="role">
                      {ROLES.names.map((r) => (
                        <option value={r} selected={r === role}>
                          {r}
                        </option>
                      ))}
                    </select>
                    <button
                      type="submit"
                      class="secondary"
                      aria-label={`Change role of ${m.email}`}
                    >
                      Change role
                    </button>
                  </form>
                )}
              </td>
              <td>
                <UtcTime at={m.created_at} />
              </td>
              <td>
                {m.last_used_at ? (
                  <>
                    <UtcTime at={m.last_used_at} />{' '}
                    <span class="hint">by {signInMethodWords(m.last_used_method)}</span>
                  </>
                ) : (
                  <span class="hint">Never</span>
                )}
              </td>
              <td>
                {isLastOwner(m, props.members) ? (
                  <span class="hint">Last owner</span>
                ) : (
                  <a href={`${base}/${m.id}/remove`} aria-label={`Remove ${m.email}`}>
                    Remove…
                  </a>
                )}
              </td>
            </tr>
          );
        })}
      </DataTable>
      <p class="hint">The last owner can be neither removed nor demoted.</p>
      <PendingInvitations viewer={viewer} invitations={props.invitations} />
      <section aria-labelledby="sign-in-policy">
        <h2 id="sign-in-policy">How members sign in</h2>
        <form class="stack" method="post" action={`${base}/sign-in-policy`}>
          <Csrf token={viewer.csrfToken} />
          <fieldset>
            <legend>Members of {viewer.brandName} may sign in with</legend>
            {SIGN_IN_POLICIES.map(([value, words]) => (
              <div>
                <label>
                  <input
                    type="radio"
                    name="policy"
                    value={value}
                    checked={props.signInPolicy === value}
                  />{' '}
                  {words}
                </label>
              </div>
            ))}
          </fieldset>
          <p class="hint">
            Changing this needs a session opened with a passkey or single sign-on, so you keep your
            own way in. Members without a passkey sign in by link once and add one on “Your
            passkeys”. Requiring single sign-on needs it connected on{' '}
            <a href={`/brands/${viewer.brandId}/sso`}>Single sign-on</a> and a session opened by it.
          </p>
          <div>
            <button type="submit">Save how members sign in</button>
          </div>
        </form>
      </section>
      <section aria-labelledby="invite">
        <h2 id="invite">Invite a member</h2>
        <p class="hint">
          We email them an invitation. They become a member only when they accept it (within seven
          days); until then they have no access and their sign-ins elsewhere stay their own.
        </p>
        <form class="stack" method="post" action={base}>
          <Csrf token={viewer.csrfToken} />
          <label for="invite-email">Email address</label>
          <input
            id="invite-email"
            name="email"
            type="email"
            required
            maxLength={254}
            value={props.form?.email ?? ''}
          />
          <label for="invite-role">Role</label>
          <select id="invite-role" name="role">
            {ROLES.names.map((r) => (
              <option value={r} selected={r === (props.form?.role ?? 'member')}>
                {r}
              </option>
            ))}
          </select>
          <div>
            <button type="submit">Invite by email</button>
          </div>
        </form>
      </section>
    </Layout>
  );
}

/**
 * Asks before removing a member, as revoking a key does: it takes effect at once. For the last
 * owner (reached only by a typed URL: the list offers no Remove) it says why it cannot be done.
 */
export function RemoveMemberPage(props: { viewer: Viewer; member: Member; lastOwner: boolean }) {
  const { viewer, member } = props;
  const base = `/brands/${viewer.brandId}/members`;
  if (props.lastOwner) {
    return (
      <Layout title="Remove member" viewer={viewer} section="members">
        <h1>{member.email} cannot be removed</h1>
        <p>
          {member.email} is the last owner of {viewer.brandName}. Make another member an owner
          first.
        </p>
        <p>
          <a href={base}>Back to Members</a>
        </p>
      </Layout>
    );
  }
  return (
    <Layout title="Remove member" viewer={viewer} section="members">
      <h1>
        Remove {member.email} from {viewer.brandName}?
      </h1>
      <p>
        They lose the brand at once: their next request for it is refused, in every browser, and the
        sessions this brand’s single sign-on opened for them end. Invitations they sent are
        withdrawn and provisioning (SCIM) tokens they made are revoked. Their sign-ins to other
        brands are untouched. To come back they need a new invitation.
      </p>
      <PostButton
        action={`${base}/${member.id}/remove`}
        csrfToken={viewer.csrfToken}
        kind="danger"
        cancel={base}
      >
        Remove {member.email}
      </PostButton>
    </Layout>
  );
}

/** What a non-owner sees: the page exists, and says why its content is not shown. */
export function MembersNotAllowedPage(props: { viewer: Viewer }) {
  return (
    <Layout title="Members" viewer={props.viewer} section="members">
      <h1>Members</h1>
      <Notice>
        Only brand owners see and manage the brand's members. You are a {props.viewer.role} of this
        brand; ask an owner to invite someone or change a role.
      </Notice>
      <p>{ROLE_HELP}</p>
    </Layout>
  );
}

/**
 * Invitations not answered yet, apart from the members: they grant nothing. Each can be
 * withdrawn; an expired one stays listed until the brand invites the address again.
 */
function PendingInvitations(props: { viewer: Viewer; invitations: MemberInvitation[] }) {
  const { viewer } = props;
  if (props.invitations.length === 0) return null;
  return (
    <section aria-labelledby="pending-invitations">
      <h2 id="pending-invitations">Pending invitations</h2>
      <DataTable
        label="Pending invitations"
        caption="Invited, not members until they accept"
        columns={['Email', 'Role', 'Invited', 'State', 'Actions']}
      >
        {props.invitations.map((inv) => (
          <tr>
            <td>{inv.email}</td>
            <td>{ROLES.fromProto(inv.role) ?? 'member'}</td>
            <td>
              <UtcTime at={inv.created_at} /> <span class="hint email">by {inv.invited_by}</span>
            </td>
            <td>
              {inv.state === 'expired' ? (
                <span class="status-failed">Expired {formatTime(inv.expires_at)}</span>
              ) : (
                <span class="status-pending">Pending until {formatTime(inv.expires_at)}</span>
              )}
            </td>
            <td>
              <PostButton
                action={`/brands/${viewer.brandId}/members/invitations/${inv.id}/withdraw`}
                csrfToken={viewer.csrfToken}
                kind="secondary"
                label={`Withdraw the invitation of ${inv.email}`}
              >
                Withdraw
              </PostButton>
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
