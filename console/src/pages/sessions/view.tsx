import type { ConsoleSession } from '@brand/proto/access/v1/sessions';
import { formatTime } from '../../views/format';
import { UtcTime } from '../../views/utcTime';
import { Layout, Notice } from '../../views/layout';
import { signInMethodWords } from '../../views/signInMethod';
import { deviceName } from './deviceName';
import { ClientAddress } from '../../views/clientAddress';
import { DataTable } from '../../views/dataTable';
import { PostButton } from '../../views/postButton';

export function SessionsPage(props: {
  email: string;
  csrfToken: string;
  sessions: ConsoleSession[];
  notice?: string;
  /** Set when a brand's single sign-on opened this session: only its sessions are listed. */
  ssoBrandName?: string;
}) {
  const others = props.sessions.filter((s) => !s.current).length;
  return (
    <Layout title="Your sessions" person={{ email: props.email, csrfToken: props.csrfToken }}>
      <h1>Your sessions</h1>
      <p>
        Every browser signed in as <strong>{props.email}</strong>. Sign out any you do not
        recognise; the device and address are what the browser told us when it signed in.
      </p>
      {props.ssoBrandName !== undefined && (
        <p>
          You signed in with <strong>{props.ssoBrandName}</strong>’s single sign-on, which speaks
          for {props.ssoBrandName} only: this lists, and signs out, only the sessions it opened.
          Sign in with an emailed link or a passkey to see every session of your address.
        </p>
      )}
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      <DataTable
        label="Your sessions"
        caption={<>Sessions of {props.email}, newest first</>}
        columns={['Device', 'Address', 'Signed in', 'Last seen', 'Actions']}
      >
        {props.sessions.map((s) => {
          const device = deviceName(s.user_agent);
          return (
            <tr>
              <td>
                {device}
                {s.current && <strong> (this session)</strong>}
              </td>
              <td>
                <ClientAddress address={s.address} otherwise="unknown" />
              </td>
              <td>
                <UtcTime at={s.signed_in_at} />{' '}
                <span class="hint">by {signInMethodWords(s.sign_in_method)}</span>
              </td>
              <td>
                <UtcTime at={s.last_seen_at} />
              </td>
              <td>
                <PostButton
                  action={`/sessions/${s.id}/end`}
                  csrfToken={props.csrfToken}
                  kind={s.current ? 'secondary' : 'danger'}
                  label={`Sign out ${s.current ? 'this session' : `${device} from ${s.address}`} (signed in ${formatTime(s.signed_in_at)})`}
                >
                  Sign out
                </PostButton>
              </td>
            </tr>
          );
        })}
      </DataTable>
      <p class="hint">"Last seen" is updated at most once a minute.</p>
      {others > 0 && (
        <PostButton action="/sessions/others/end" csrfToken={props.csrfToken} kind="danger">
          Sign out all other sessions ({others})
        </PostButton>
      )}
    </Layout>
  );
}
