import { formatTime } from './format';
import { Notice } from './notice';

/** A receiver that needs its owners: failing now, or disabled by the service. */
export interface ReceiverAttention {
  id: string;
  label: string;
  /** When its failures began (RFC 3339); may be empty for a receiver disabled by the service. */
  failingSince: string;
  lastError: string;
  /** Set when the service disabled it (410, or no 2xx within the failure window). */
  disabledAt?: string;
  disabledReason?: string;
}

function Trouble(props: { r: ReceiverAttention }) {
  const { r } = props;
  if (r.disabledAt !== undefined) {
    return (
      <>
        disabled by the service since {formatTime(r.disabledAt)}
        {r.disabledReason ? ` (${r.disabledReason})` : ''}
      </>
    );
  }
  return (
    <>
      failing since {formatTime(r.failingSince)}
      {r.lastError ? `: ${r.lastError}` : ''}
    </>
  );
}

/**
 * The one notice every page of a brand shows while any of its receivers is failing or was
 * disabled by the service, with a link to each.
 */
export function ReceiverAttentionNotice(props: {
  brandId: string;
  receivers: ReceiverAttention[];
}) {
  const { receivers } = props;
  if (receivers.length === 0) return null;
  const link = (r: ReceiverAttention) => `/brands/${props.brandId}/receivers/${r.id}`;
  if (receivers.length === 1) {
    const r = receivers[0]!;
    return (
      <Notice tone="warn">
        Receiver <a href={link(r)}>{r.label}</a> is <Trouble r={r} />.
      </Notice>
    );
  }
  return (
    <Notice tone="warn">
      {receivers.length} receivers need attention:
      <ul>
        {receivers.map((r) => (
          <li>
            <a href={link(r)}>{r.label}</a>: <Trouble r={r} />
          </li>
        ))}
      </ul>
    </Notice>
  );
}
