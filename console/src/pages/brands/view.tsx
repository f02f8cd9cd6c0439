import type { BrandMembership } from '@brand/proto/access/v1/sessions';
import { ROLES, TIERS } from '@brand/shared/enums';
import { Layout, Notice } from '../../views/layout';
import { PostButton } from '../../views/postButton';

/** The brand picker: a member of several brands chooses which one to act on. */
export function BrandsPage(props: {
  email: string;
  csrfToken: string;
  brands: BrandMembership[];
  /** Set when a brand's single sign-on opened this session (it speaks for that brand only). */
  ssoBrandName?: string;
  /** The brands whose invitations wait for this address's answer. */
  invitedBy?: string[];
}) {
  const invitedBy = props.invitedBy ?? [];
  return (
    <Layout title="Choose a brand" person={{ email: props.email, csrfToken: props.csrfToken }}>
      <h1>Choose a brand</h1>
      <p>
        Signed in as <strong>{props.email}</strong>.
      </p>
      {invitedBy.length > 0 && (
        <Notice>
          {invitedBy.join(', ')} invited you. <a href="/invitations">Answer your invitations</a>:
          you join a brand only if you accept.
        </Notice>
      )}
      {props.brands.length === 0 ? (
        <p>You are not a member of any brand that can use the Developers area.</p>
      ) : (
        <ul>
          {props.brands.map((m) => (
            <li>
              <a href={`/brands/${m.brand?.id ?? ''}`}>{m.brand?.name}</a>{' '}
              <span class="hint">
                ({ROLES.fromProto(m.member?.role ?? 0) ?? 'member'},{' '}
                {TIERS.fromProto(m.brand?.tier ?? 0) ?? 'free'} tier)
              </span>
            </li>
          ))}
        </ul>
      )}
      <h2>Your sessions</h2>
      <p>
        <a href="/sessions">See where you are signed in</a>, and sign out a device you do not
        recognise.
      </p>
      <div class="actions">
        <PostButton action="/sign-out-everywhere" csrfToken={props.csrfToken} kind="danger">
          Sign out everywhere
        </PostButton>
      </div>
      <p class="hint">
        {props.ssoBrandName === undefined
          ? 'Sign out everywhere ends every session of your address, on every device and browser.'
          : `You signed in with ${props.ssoBrandName}’s single sign-on: sign out everywhere ends the sessions it opened for you, on every device and browser. Your other sessions are ended from a session opened by an emailed link or a passkey.`}
      </p>
    </Layout>
  );
}
