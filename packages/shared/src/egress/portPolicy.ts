/**
 * The receiver port policy (issue 19). A receiver is an HTTPS web server: on 443, or on an
 * unprivileged port (1024-65535) as alternative HTTPS ports are (8443, and our own example
 * receiver's). Refused:
 * - port 0 (not a port anything listens on) and anything above 65535;
 * - 1-1023 except 443: the well-known ports of other protocols (SSH 22, SMTP 25, DNS 53,
 *   LDAP 389, SMB 445, ...), where an HTTPS request is at best useless and at worst a
 *   cross-protocol probe of someone's mail or directory server sent from our addresses;
 * - the ports of datastores and cluster control planes that answer plain-text protocols
 *   on public addresses when misconfigured (below): the same probe, one port range up.
 * Checked at registration, at update and before every delivery attempt (checkUrlShape).
 */
const DENIED_PORTS: ReadonlyMap<number, string> = new Map([
  [1433, 'Microsoft SQL Server'],
  [2375, 'the Docker API'],
  [2376, 'the Docker API'],
  [2379, 'etcd'],
  [2380, 'etcd'],
  [3306, 'MySQL'],
  [5432, 'PostgreSQL'],
  [5984, 'CouchDB'],
  [6379, 'Redis'],
  [6443, 'the Kubernetes API'],
  [9092, 'Kafka'],
  [9200, 'Elasticsearch'],
  [10250, 'the kubelet'],
  [11211, 'memcached'],
  [27017, 'MongoDB'],
]);

export const HTTPS_PORT = 443;
const FIRST_UNPRIVILEGED = 1024;
const LAST_PORT = 65535;

/** Why a receiver may not use `port` (a number, as digits), or undefined when it may. */
export function portRefusal(port: number): string | undefined {
  if (!Number.isInteger(port) || port < 1 || port > LAST_PORT)
    return `port ${port} is not a port: use 443 or 1024-${LAST_PORT}`;
  if (port === HTTPS_PORT) return undefined;
  if (port < FIRST_UNPRIVILEGED)
    return `port ${port} is a well-known port of another protocol: use 443 or 1024-${LAST_PORT}`;
  const service = DENIED_PORTS.get(port);
  if (service) return `port ${port} is ${service}'s port, not a webhook receiver's`;
  return undefined;
}

/**
 * The port written in a URL the WHATWG parser refused, when that is why (a port above
 * 65535): so the refusal can say so instead of "not a valid URL".
 */
export function outOfRangePort(raw: string): number | undefined {
  const m =
    /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(?:\[[^\]/?#]*\]|[^:/?#]*):(\d+)(?:[/?#]|$)/i.exec(
      raw.trim(),
    );
  const port = m ? Number(m[1]) : undefined;
  return port !== undefined && port > LAST_PORT ? port : undefined;
}
