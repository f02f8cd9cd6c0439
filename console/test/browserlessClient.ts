/**
 * A minimal HTTP client for the console's integration tests: one cookie jar, no redirects
 * followed, and the Origin a browser would send on a form post (overridable, to forge).
 */
export interface Answer {
  status: number;
  headers: Headers;
  body: string;
  location: string | null;
}

export class ConsoleHttp {
  cookie = '';
  /** The single sign-on browser binding (__Host-console_sso), kept like the session cookie. */
  ssoCookie = '';
  /** Where a sign-in returns to (__Host-console_return), kept like the session cookie. */
  returnCookie = '';
  /** Sent as User-Agent when set (the device "Your sessions" names). */
  userAgent = '';
  /**
   * `clientIp`, when given, is sent as X-Forwarded-For: the address the console sees when it
   * trusts its proxy (TRUST_PROXY), so one test can act as several clients.
   */
  constructor(
    readonly origin: string,
    readonly clientIp?: string,
  ) {}

  async get(path: string): Promise<Answer> {
    return this.send('GET', path);
  }

  /** Posts a form; `origin: null` sends none, a string sends that one. */
  async post(
    path: string,
    form: Record<string, string | string[]>,
    opts: { origin?: string | null } = {},
  ): Promise<Answer> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of [v].flat()) body.append(k, x);
    return this.send(
      'POST',
      path,
      body.toString(),
      opts.origin === undefined ? this.origin : opts.origin,
    );
  }

  private async send(
    method: string,
    path: string,
    body?: string,
    origin?: string | null,
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    const cookies = [this.cookie, this.ssoCookie, this.returnCookie].filter((c) => c !== '');
    if (cookies.length > 0) headers.cookie = cookies.join('; ');
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (origin) headers.origin = origin;
    if (this.clientIp) headers['x-forwarded-for'] = this.clientIp;
    if (this.userAgent) headers['user-agent'] = this.userAgent;
    const res = await fetch(`${this.origin}${path}`, { method, headers, body, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [name, value] = pair!.split('=');
      if (name === '__Host-console_session') this.cookie = value ? `${name}=${value}` : '';
      if (name === '__Host-console_sso') this.ssoCookie = value ? `${name}=${value}` : '';
      if (name === '__Host-console_return') this.returnCookie = value ? `${name}=${value}` : '';
    }
    return {
      status: res.status,
      headers: res.headers,
      body: await res.text(),
      location: res.headers.get('location'),
    };
  }
}

/** The hidden CSRF token of the first form on a page. */
export function csrfOf(page: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!token) throw new Error('no CSRF token on the page');
  return token;
}

/** A page's header, where who is signed in and Sign out are ('' when it has none). */
export function headerOf(html: string): string {
  return /<header class="top">([\s\S]*?)<\/header>/.exec(html)?.[1] ?? '';
}

/** Whether a page's header names `email` and holds exactly one Sign out. */
export function headerSignedInAs(html: string, email: string): boolean {
  const header = headerOf(html);
  return header.includes(email) && (header.match(/>\s*Sign out\s*</g) ?? []).length === 1;
}

/** A page's text as read: tags and spaces collapsed, quotes decoded. */
export function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Undoes the escaping the console's views apply to attribute values and text. */
function unescapeHtml(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * The form posting to `action` on `page` as a browser posts it untouched: named inputs, ticked
 * boxes and chosen radios (a box without a value posts "on"), text areas and each select's chosen
 * option. A name posted more than once (a group of boxes) is a list.
 */
export function formAsPosted(page: string, action: string): Record<string, string | string[]> {
  const start = page.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action}`);
  const form = page.slice(start, page.indexOf('</form>', start));
  const fields: Record<string, string | string[]> = {};
  const add = (name: string, value: string) => {
    const had = fields[name];
    fields[name] = had === undefined ? value : [had, value].flat();
  };
  for (const [input] of form.matchAll(/<input [^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(input)?.[1];
    if (!name) continue;
    const value = /value="([^"]*)"/.exec(input)?.[1];
    if (/type="(checkbox|radio)"/.test(input)) {
      if (/ checked/.test(input)) add(name, value === undefined ? 'on' : unescapeHtml(value));
    } else add(name, unescapeHtml(value ?? ''));
  }
  for (const [, name, text] of form.matchAll(
    /<textarea [^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g,
  ))
    add(name!, unescapeHtml(text!));
  for (const [, name, options] of form.matchAll(
    /<select [^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g,
  )) {
    const values = [...options!.matchAll(/<option [^>]*>/g)].map(([o]) => o);
    const chosen = values.find((o) => / selected/.test(o)) ?? values[0];
    const value = chosen && /value="([^"]*)"/.exec(chosen)?.[1];
    if (value !== undefined) add(name!, unescapeHtml(value));
  }
  return fields;
}
