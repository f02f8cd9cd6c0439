import { randomHex, startTestIdp, type IdpUser, type TestIdp } from '@brand/testkit';
import { ConsoleHttp, csrfOf, type Answer } from './browserlessClient';
import { signInHttp } from './consoleActors';
import type { ConsoleStack } from './consoleStack';

/**
 * A person's browser at the identity provider: a cookie jar of its own (the provider's
 * session and interaction cookies), redirects followed by hand until one leaves for the
 * console. Drives the provider's real login form.
 */
export class IdpBrowser {
  private readonly jar = new Map<string, string>();

  async request(url: string, form?: Record<string, string>): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.jar.size > 0) {
      headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: 'manual',
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const gone = attrs.some((a) => /expires=Thu, 01 Jan 1970/i.test(a) || /max-age=0/i.test(a));
      if (gone) this.jar.delete(name);
      else this.jar.set(name, pair!.slice(eq + 1));
    }
    const location = res.headers.get('location');
    return {
      status: res.status,
      headers: res.headers,
      body: await res.text(),
      location: location ? new URL(location, url).href : null,
    };
  }

  /**
   * Opens the authorization URL and, when the provider asks, signs in with `user` on its
   * login form. Answers the callback URL the provider sent the browser back to (under
   * `consoleOrigin`), or the provider's last answer when it sent nobody back (a refused login).
   */
  async authorize(
    authorizationUrl: string,
    consoleOrigin: string,
    user?: Pick<IdpUser, 'email' | 'password'>,
  ): Promise<{ callbackUrl?: string; last: Answer }> {
    let url = authorizationUrl;
    let form: Record<string, string> | undefined;
    for (let hop = 0; hop < 12; hop++) {
      const answer = await this.request(url, form);
      form = undefined;
      if (answer.location?.startsWith(consoleOrigin))
        return { callbackUrl: answer.location, last: answer };
      if (answer.location) {
        url = answer.location;
        continue;
      }
      const login = /action="(\/interaction\/[^"]+\/login)"/.exec(answer.body)?.[1];
      if (answer.status === 200 && login && user) {
        url = new URL(login, url).href;
        form = { email: user.email, password: user.password };
        user = undefined; // one attempt: a refused login ends here
        continue;
      }
      return { last: answer };
    }
    throw new Error('the provider redirected too many times');
  }
}

/** The authorization URL on the "Continue to your identity provider" page. */
export function authorizationUrlOf(page: string): string {
  const href = /<a class="button" href="([^"]+)"/.exec(page)?.[1];
  if (!href) throw new Error(`no link to the provider on the page: ${page.slice(0, 400)}`);
  return href.replaceAll('&amp;', '&');
}

/** Starts a single sign-on from a new (or the given) console client; the page's answer. */
export async function startSso(
  cs: ConsoleStack,
  form: { email?: string; brand?: string },
  http = new ConsoleHttp(cs.url),
): Promise<{ http: ConsoleHttp; answer: Answer }> {
  const answer = await http.post('/sign-in/sso', {
    email: form.email ?? '',
    brand: form.brand ?? '',
  });
  return { http, answer };
}

/** The whole sign-in, as a person does it: start, the provider's login, back to the callback. */
export async function signInWithSso(
  cs: ConsoleStack,
  user: Pick<IdpUser, 'email' | 'password'>,
  opts: { brand?: string; idpBrowser?: IdpBrowser } = {},
): Promise<{ http: ConsoleHttp; answer: Answer; callbackUrl?: string }> {
  const { http, answer: started } = await startSso(cs, { email: user.email, brand: opts.brand });
  if (started.status !== 200) return { http, answer: started };
  const browser = opts.idpBrowser ?? new IdpBrowser();
  const { callbackUrl, last } = await browser.authorize(
    authorizationUrlOf(started.body),
    cs.url,
    user,
  );
  if (!callbackUrl) return { http, answer: last };
  const answer = await http.get(callbackUrl.slice(cs.url.length));
  return { http, answer, callbackUrl };
}

/** The redirect URI brands register at the provider. */
const callbackOf = (cs: ConsoleStack): string => `${cs.url}/sign-in/sso/callback`;

/** The TXT record the Single sign-on page asks the owner to publish for `domain`. */
export function proofRecordOf(page: string, domain: string): { name: string; value: string } {
  const row = new RegExp(`<tr id="domain-${domain.replaceAll('.', '\\.')}">([\\s\\S]*?)</tr>`).exec(
    page,
  )?.[1];
  const name = row && /Name <code>([^<]+)<\/code>/.exec(row)?.[1];
  const value = row && /Value <code>([^<]+)<\/code>/.exec(row)?.[1];
  if (!name || !value) throw new Error(`no record to publish for ${domain} on the page`);
  return { name, value };
}

/**
 * Proves `domain` for the brand as an owner does: reads the record to publish on the Single
 * sign-on page, publishes it on the test's DNS server, and presses Verify now. Answers the
 * page's answer to the press (a 303 to the page).
 */
export async function verifyDomainHttp(
  cs: ConsoleStack,
  ownerHttp: ConsoleHttp,
  brandId: string,
  domain: string,
): Promise<Answer> {
  const page = await ownerHttp.get(`/brands/${brandId}/sso`);
  const record = proofRecordOf(page.body, domain);
  cs.dns.publishTxt(record.name, [record.value]);
  return ownerHttp.post(`/brands/${brandId}/sso/domains/verify`, {
    _csrf: csrfOf(page.body),
    domain,
  });
}

/**
 * A verified Plus brand whose owner is owner@<a domain of its own>, its identity provider
 * connected by that owner through the console's page (client `client_id` at `idp`), allowing
 * that domain, which the owner then proves by DNS (verifyDomainHttp). Answers the domain and
 * the owner's link-session client too.
 */
export async function brandWithSso(
  cs: ConsoleStack,
  idp: TestIdp,
  client: { client_id: string; client_secret: string },
  domain = `sso-${randomHex(4)}.test`,
) {
  const made = await cs.stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner@${domain}`,
  });
  const ownerHttp = await signInHttp(cs, made.owner.email);
  const page = await ownerHttp.get(`/brands/${made.brand.id}/sso`);
  const saved = await ownerHttp.post(`/brands/${made.brand.id}/sso`, {
    _csrf: csrfOf(page.body),
    issuer: idp.issuer,
    client_id: client.client_id,
    client_secret: client.client_secret,
    allowed_domains: domain,
    enabled: 'on',
  });
  if (saved.status !== 303)
    throw new Error(`connecting SSO answered ${saved.status}: ${saved.body}`);
  const verified = await verifyDomainHttp(cs, ownerHttp, made.brand.id, domain);
  if (verified.location !== `/brands/${made.brand.id}/sso?done=verified#domain-${domain}`)
    throw new Error(`verifying ${domain} answered ${verified.status} ${verified.location ?? ''}`);
  return { ...made, domain, ownerHttp };
}

/**
 * Moves the brand's identity provider's "set at" back a day and a minute, as if it had been
 * connected yesterday: requiring single sign-on waits a day after the provider is set (issue 59),
 * and a test that requires it right after connecting stands for an owner who waited.
 */
export async function providerSetLongAgo(cs: ConsoleStack, brandId: string): Promise<void> {
  const r = await cs.stack.db.pool.query(
    `update records.sso_connections set provider_set_at = now() - interval '1 day 1 minute'
      where brand_id = $1`,
    [brandId],
  );
  if (r.rowCount !== 1) throw new Error(`${brandId} has no single sign-on connection`);
}

/** A client for one brand's connection, registered at the provider for this console. */
export function idpClient(cs: ConsoleStack, name = randomHex(4)) {
  return {
    client_id: `console-${name}`,
    client_secret: `secret-${randomHex(16)}`,
    redirect_uris: [callbackOf(cs)],
  };
}

export { startTestIdp };
