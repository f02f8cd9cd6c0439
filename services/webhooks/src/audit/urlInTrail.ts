/**
 * A destination's URL as the audit trail names it (a receiver's, an audit stream's): scheme and
 * host, with "/…", "?…" or "#…" for a path, query or fragment, each of which may hold a
 * credential the owner put there: Azure Functions' `?code=`, a receiver's `?token=`, and in the
 * path itself a Slack or Discord webhook's secret, a Sumo Logic HTTP source's token. The trail
 * reaches the audit-log API and every SIEM stream, and its entries never carry a secret; the
 * whole URL stays on the destination itself, for those who may read it (hostile reviews,
 * 2026-11-30: the query first, then the path).
 */
export function urlInTrail(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '(a URL)';
  }
  const path = url.pathname === '/' || url.pathname === '' ? '' : '/…';
  return `${url.origin}${path}${url.search ? '?…' : ''}${url.hash ? '#…' : ''}`;
}
