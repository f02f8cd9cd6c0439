// Whether a pod may open a TCP connection to an address under the rendered egress
// NetworkPolicies, as Kubernetes decides it (no policy selecting the pod: anything; else any rule
// of any selecting policy). For the deploy checks (npm run deploy:check); IPv4 literals only.

/** Whether a label selector ({ matchLabels, matchExpressions: In only }) selects these labels. */
const selects = (selector, labels = {}) =>
  Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v) &&
  (selector?.matchExpressions ?? []).every(
    ({ key, operator, values = [] }) => operator === 'In' && values.includes(labels[key]),
  );

const ipv4 = (a) => a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
export const isIpv4 = (a) => /^\d+\.\d+\.\d+\.\d+$/.test(a);
/** Whether an IPv4 address lies in a CIDR (IPv6 blocks never match an IPv4 address). */
const inCidr = (ip, cidr) => {
  const [base, bits = '32'] = cidr.split('/');
  if (!isIpv4(base)) return false;
  const size = 2 ** (32 - Number(bits));
  return Math.floor(ipv4(ip) / size) === Math.floor(ipv4(base) / size);
};

const portMatches = (rule, port) =>
  !rule.ports?.length ||
  rule.ports.some(
    (p) =>
      (p.protocol ?? 'TCP') === 'TCP' &&
      (p.port === undefined ||
        p.port === port ||
        (p.endPort && p.port <= port && port <= p.endPort)),
  );

/** Whether a rule's destinations include `ip` (an IPv4 literal) or, for a host name, some address block. */
const peerMatches = (to, ip) =>
  !to?.length ||
  to.some(
    (p) =>
      p.ipBlock &&
      (ip === undefined ||
        (inCidr(ip, p.ipBlock.cidr) && !(p.ipBlock.except ?? []).some((e) => inCidr(ip, e)))),
  );

/**
 * Whether a pod (its namespace and labels) may open a TCP connection to ip:port under the egress
 * `policies` (ip undefined: a host name, reachable when some rule admits any address block).
 */
export function podCanReach(policies, namespace, labels, ip, port) {
  const mine = policies.filter(
    (np) => np.metadata.namespace === namespace && selects(np.spec.podSelector, labels),
  );
  return (
    mine.length === 0 ||
    mine.some((np) =>
      (np.spec.egress ?? []).some((r) => portMatches(r, port) && peerMatches(r.to, ip)),
    )
  );
}
