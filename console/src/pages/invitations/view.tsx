import type { MemberInvitation } from '@brand/proto/access/v1';
import { PostButton } from '../../views/postButton';
import { ROLES } from '@brand/shared/enums';
import { formatTime } from '../../views/format';
import { Layout, Notice } from '../../views/layout';

const roleOf = (inv: MemberInvitation): string => ROLES.fromProto(inv.role) ?? 'member';

/** One invitation in words: the brand, the role, who invited, until when. */
function InvitationWords(props: { inv: MemberInvitation }) {
  const { inv } = props;
  return (
    <>
      <strong>{inv.brand_name}</strong> invites you as {roleOf(inv) === 'member' ? 'a' : 'an'}{' '}
      {roleOf(inv)}.{' '}
      <span class="hint">
        From {inv.invited_by}; expires {formatTime(inv.expires_at)}.
      </span>
    </>
  );
}

/**
 * "Invitations": the pending invitations of the signed-in address (issue 59). Nothing changes
 * for the person until they accept one; declining tells the brand, and nothing else.
 */
export function InvitationsPage(props: {
  email: string;
  csrfToken: string;
  invitations: MemberInvitation[];
  notice?: string;
  /** Set when the session cannot answer invitations (opened by a brand's single sign-on). */
  refusal?: string;
}) {
  return (
    <Layout title="Your invitations" person={{ email: props.email, csrfToken: props.csrfToken }}>
      <h1>Your invitations</h1>
      <p>
        Brands that invited <strong>{props.email}</strong>. You become a member of a brand only when
        you accept; until then it sees nothing of you but the invitation.
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.refusal !== undefined ? (
        <Notice>{props.refusal}</Notice>
      ) : props.invitations.length === 0 ? (
        <p>No invitations are waiting for you.</p>
      ) : (
        <ul class="plain">
          {props.invitations.map((inv) => (
            <li>
              <p>
                <InvitationWords inv={inv} />
              </p>
              <div class="actions">
                <PostButton
                  action={`/invitations/${inv.id}/accept`}
                  csrfToken={props.csrfToken}
                  data={{ brand: inv.brand_id }}
                  label={`Accept the invitation to ${inv.brand_name}`}
                >
                  Accept
                </PostButton>
                <PostButton
                  action={`/invitations/${inv.id}/decline`}
                  csrfToken={props.csrfToken}
                  data={{ brand: inv.brand_id }}
                  kind="secondary"
                  label={`Decline the invitation to ${inv.brand_name}`}
                >
                  Decline
                </PostButton>
              </div>
            </li>
          ))}
        </ul>
      )}
    </Layout>
  );
}

/**
 * The page a mailed invitation link opens (GET shows it, POST answers it, so mail scanners that
 * follow links answer nothing). The link's token proves the address.
 */
export function InvitationLinkPage(props: { token: string; inv: MemberInvitation }) {
  const { inv } = props;
  if (inv.state !== 'pending') return <InvitationClosedPage inv={inv} />;
  return (
    <Layout title="Invitation">
      <h1>Join {inv.brand_name}?</h1>
      <p>
        <InvitationWords inv={inv} />
      </p>
      <p>
        Invited address: <strong>{inv.email}</strong>. Accepting makes you a member of{' '}
        {inv.brand_name} in the Developers area; declining tells {inv.brand_name} you declined.
      </p>
      <div class="actions">
        <form method="post" action={`/invite/${props.token}`}>
          <input type="hidden" name="answer" value="accept" />
          <button type="submit">Accept and join {inv.brand_name}</button>
        </form>
        <form method="post" action={`/invite/${props.token}`}>
          <input type="hidden" name="answer" value="decline" />
          <button type="submit" class="secondary">
            Decline
          </button>
        </form>
      </div>
    </Layout>
  );
}

/** After the answer: joined (and how to sign in), or declined. */
export function InvitationAnsweredPage(props: { inv: MemberInvitation; signedInHere: boolean }) {
  const { inv } = props;
  if (inv.state === 'declined') {
    return (
      <Layout title="Invitation declined">
        <h1>Invitation declined</h1>
        <p>You are not a member of {inv.brand_name}; it was told you declined.</p>
      </Layout>
    );
  }
  return (
    <Layout title={`You joined ${inv.brand_name}`}>
      <h1>You joined {inv.brand_name}</h1>
      <p>
        {inv.email} is now {roleOf(inv) === 'member' ? 'a' : 'an'} {roleOf(inv)} of {inv.brand_name}
        .
      </p>
      {props.signedInHere ? (
        <p>
          <a href={`/brands/${inv.brand_id}`}>Open {inv.brand_name}</a>
        </p>
      ) : (
        <form class="stack" method="post" action="/sign-in">
          <input type="hidden" name="email" value={inv.email} />
          <p>Sign in to open it: we email {inv.email} a sign-in link.</p>
          <div>
            <button type="submit">Email me a sign-in link</button>
          </div>
        </form>
      )}
    </Layout>
  );
}

/** An invitation that can no longer be answered, and why. */
export function InvitationClosedPage(props: { inv?: MemberInvitation; message?: string }) {
  const why: Record<string, string> = {
    accepted: 'You accepted this invitation already.',
    declined: 'You declined this invitation.',
    withdrawn: 'The brand withdrew this invitation.',
    expired: 'This invitation has expired. Ask the brand’s owner to invite you again.',
  };
  return (
    <Layout title="Invitation closed">
      <h1>This invitation is closed</h1>
      <Notice>
        {props.message ??
          why[props.inv?.state ?? ''] ??
          'This invitation can no longer be answered.'}
      </Notice>
      {props.inv?.state === 'accepted' && (
        <p>
          <a href={`/brands/${props.inv.brand_id}`}>Open {props.inv.brand_name}</a> (sign in first).
        </p>
      )}
    </Layout>
  );
}
