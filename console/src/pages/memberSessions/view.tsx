import type { BrandSsoSession } from '@brand/proto/access/v1/sso';
import { formatTime } from '../../views/format';
import { Layout, Notice, type Viewer } from '../../views/layout';
import { deviceName } from '../sessions/deviceName';
import { ClientAddress } from '../../views/clientAddress';
import { DataTable } from '../../views/dataTable';
import { PostButton } from '../../views/postButton';
import { UtcTime } from '../../views/utcTime';

/**
 * Members' sessions (owners only, issue 42): every live session the brand's single sign-on
 * opened, any member's, each with a Sign out button. Sessions of an address (an emailed link,
 * a passkey) are the person's own and are not listed here.
 */
export function MemberSessionsPage(props: {
  viewer: Viewer;
  sessions: BrandSsoSession[];
  notice?: string;
  error?: string;
}) {
  const base = `/brands/${props.viewer.brandId}`;
  return (
    <Layout title="Members’ sessions" viewer={props.viewer} section="members">
      <p>
        <a href={`${base}/members`}>Back to members</a>
      </p>
      <h1>Members’ sessions</h1>
      <p>
        Every browser signed in to {props.viewer.brandName} through its single sign-on, any
        member’s. Sign one out and it must sign in through the identity provider again. The provider
        is asked at an interval whether each person is still there, and a person it signs out (or
        deletes) is signed out here too. Sessions opened by an emailed link or a passkey belong to
        the person’s address, not to this brand; removing a member ends their access to this brand
        at once.
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      <DataTable
        label="Members' sessions"
        caption={<>Single sign-on sessions of {props.viewer.brandName}, newest first</>}
        columns={[
          'Member',
          'Device',
          'Address',
          'Signed in',
          'Last seen',
          'Checked with the provider',
          'Actions',
        ]}
      >
        {props.sessions.length === 0 && (
          <tr>
            <td colSpan={7}>No member is signed in through single sign-on now.</td>
          </tr>
        )}
        {props.sessions.map((s) => {
          const device = deviceName(s.user_agent);
          return (
            <tr id={`session-${s.id}`}>
              <td class="email">
                {s.email}
                {s.current && <strong> (you, this session)</strong>}
                {s.member_id === '' && <span class="hint"> (no longer a member)</span>}
              </td>
              <td>{device}</td>
              <td>
                <ClientAddress address={s.address} otherwise="unknown" />
              </td>
              <td>
                <UtcTime at={s.signed_in_at} />
              </td>
              <td>
                <UtcTime at={s.last_seen_at} />
              </td>
              <td>
                <UtcTime at={s.checked_at} otherwise="not yet" />
              </td>
              <td>
                <PostButton
                  action={`${base}/members/sessions/${s.id}/end`}
                  csrfToken={props.viewer.csrfToken}
                  kind={s.current ? 'secondary' : 'danger'}
                  label={`Sign out ${s.email} on ${device} (signed in ${formatTime(s.signed_in_at)})`}
                >
                  Sign out
                </PostButton>
              </td>
            </tr>
          );
        })}
      </DataTable>
      <p class="hint">"Last seen" is updated at most once a minute.</p>
    </Layout>
  );
}

export function MemberSessionsNotAllowedPage(props: { viewer: Viewer }) {
  return (
    <Layout title="Members’ sessions" viewer={props.viewer} section="members">
      <h1>Members’ sessions</h1>
      <Notice>
        Only brand owners see and end members’ sessions. You are a {props.viewer.role} of this
        brand; your own sessions are under “Your sessions”.
      </Notice>
    </Layout>
  );
}
