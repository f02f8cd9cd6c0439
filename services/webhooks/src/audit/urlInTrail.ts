/**
 * A destination's URL as the audit trail names it (a receiver's, an audit stream's): scheme,
 * host and path, and "?…" or "#…" for a query or fragment, which may hold a credential the owner
 * put there (Azure Functions' `?code=`, a receiver's `?token=`). The trail reaches the audit-log
 * API and every SIEM stream, and its entries never carry a secret; the whole URL stays on the
 * destination itself, for those who may read it (a hostile review, 2026-11-30).
 */
export function urlInTrail(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '(a URL)';
  }
  return `${url.origin}${url.pathname}${url.search ? '?…' : ''}${url.hash ? '#…' : ''}`;
}
