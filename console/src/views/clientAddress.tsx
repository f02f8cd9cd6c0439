import { breaksAfter } from './wrapPoints';

/**
 * The network address a request or a sign-in came from, as code. An IPv4 address is kept whole
 * ("127.0.0.1", never "127.0.0. / 1" in a narrow column); an IPv6 one may wrap after a colon only.
 * With no address, `otherwise` in the hint's colour, or nothing.
 */
export function ClientAddress(props: { address: string; otherwise?: string }) {
  if (props.address === '')
    return props.otherwise ? <span class="hint">{props.otherwise}</span> : null;
  return <code class="address">{breaksAfter(':', props.address)}</code>;
}
