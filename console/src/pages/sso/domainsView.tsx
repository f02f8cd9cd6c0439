import type { SsoChangeProof, SsoDomain } from '@brand/proto/access/v1/sso';
import { formatTime } from '../../views/format';
import { Notice } from '../../views/layout';
import { PostButton } from '../../views/postButton';
import { DataTable } from '../../views/dataTable';

/** A domain's state in words, with the class that colours it. */
function DomainState(props: { d: SsoDomain }) {
  const { d } = props;
  if (d.state === 'verified' && d.proof_missing_since)
    return (
      <span class="status-failed">
        Verified, but the record was not found since {formatTime(d.proof_missing_since)}: publish it
        again before {formatTime(d.fails_at)}, or the domain stops routing sign-ins.
      </span>
    );
  if (d.state === 'verified')
    return (
      <span class="status-succeeded">
        Verified {formatTime(d.verified_at)}
        {d.checked_at && <span class="hint">; last checked {formatTime(d.checked_at)}</span>}
      </span>
    );
  if (d.state === 'failed')
    return (
      <span class="status-failed">
        Not verified (checked {formatTime(d.checked_at)}): {d.problem}
      </span>
    );
  return <span class="status-pending">Pending: publish the record, then verify</span>;
}

/**
 * The connection's domains and their DNS proofs (issue 42): single sign-on admits addresses only
 * at verified domains. Each pending or failed domain shows the TXT record to publish and a
 * "Verify now" button; records looks the record up through the operator's resolvers.
 */
export function SsoDomains(props: { brandId: string; csrfToken: string; domains: SsoDomain[] }) {
  const pending = props.domains.filter((d) => d.state !== 'verified').length;
  return (
    <section aria-labelledby="sso-domains-title">
      <h2 id="sso-domains-title">Domains</h2>
      <p>
        Single sign-on signs in only addresses at domains this brand has proven it controls. For
        each domain, publish a TXT record in its DNS, then press Verify now. A verified domain
        belongs to one brand at a time.
      </p>
      {pending > 0 && (
        <Notice tone="warn">
          {pending === 1 ? 'One domain is' : `${pending} domains are`} not verified yet: nobody at{' '}
          {pending === 1 ? 'it' : 'them'} can sign in with single sign-on.
        </Notice>
      )}
      <DataTable
        label="Domains"
        caption="The single sign-on domains and their DNS proof"
        captionClass="visually-hidden"
        columns={[
          'Domain',
          'State',
          'TXT record to publish',
          <span class="visually-hidden">Action</span>,
        ]}
      >
        {props.domains.map((d) => (
          <tr key={d.domain} id={`domain-${d.domain}`}>
            <td>{d.domain}</td>
            <td>
              <DomainState d={d} />
            </td>
            <td>
              {d.state === 'verified' && !d.proof_missing_since ? (
                <span class="hint">
                  Published; keep it while the domain is here (it is checked again daily).
                </span>
              ) : (
                <>
                  Name <code>{d.record_name}</code>
                  <br />
                  Value <code>{d.record_value}</code>
                </>
              )}
            </td>
            <td>
              {d.state !== 'verified' && (
                <PostButton
                  action={`/brands/${props.brandId}/sso/domains/verify`}
                  csrfToken={props.csrfToken}
                  fields={{ domain: d.domain }}
                  label={`Verify ${d.domain} now`}
                >
                  Verify now
                </PostButton>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

/**
 * Whether this owner may change the connection now (issue 42 part 4): while it is in use, only
 * within ten minutes of signing in through it. Says which, and links to a fresh sign-in.
 */
export function ChangeProofNotice(props: { brandId: string; proof: SsoChangeProof | undefined }) {
  const { proof } = props;
  if (!proof?.required) return null;
  if (proof.fresh_until)
    return (
      <Notice tone="ok">
        You signed in with single sign-on: you may change it until {formatTime(proof.fresh_until)}.
      </Notice>
    );
  return (
    <Notice tone="warn">
      Single sign-on is in use: changing or removing it needs a fresh sign-in through it.{' '}
      <a href={`/sign-in/sso?brand=${props.brandId}`}>Sign in with single sign-on again</a>, then
      come back here within ten minutes.
    </Notice>
  );
}
