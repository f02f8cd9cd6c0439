/**
 * Why the API origin an API key is sent to cannot be used, or undefined: the key is a bearer
 * credential, so it goes over HTTPS, or over plain http only to a gateway on this machine (the
 * local stack's default, http://127.0.0.1:8080). An outside probe (2026-11-30) had
 * `events follow --url http://<another host>` send `Authorization: Bearer bk_live_…` in clear,
 * while the README promised HTTPS only.
 */
export function apiUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `the API origin (--url or BRAND_RECORDS_URL) ${JSON.stringify(raw)} is not a URL: give one such as https://api.example.com`;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isThisMachine(url.hostname)) return undefined;
  if (url.protocol === 'http:')
    return `the API origin (--url or BRAND_RECORDS_URL) ${url.origin} would send the API key in clear: use https (plain http only to a gateway on this machine: localhost, 127.0.0.1, [::1])`;
  return `the API origin (--url or BRAND_RECORDS_URL) must be https (got ${url.protocol}), e.g. https://api.example.com`;
}

/** localhost, 127.0.0.0/8 or ::1, as WHATWG URL writes them (IPv6 in brackets). */
function isThisMachine(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}
