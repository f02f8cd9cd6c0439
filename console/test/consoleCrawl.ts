/**
 * What a person can reach in the console, found as an outside checker finds it: from the front
 * page, following every same-origin link and redirect, collecting every form. No list of routes
 * from the console's code, so a page or form added later is swept without anyone adding it here.
 */
import { randomUUID } from 'node:crypto';
import { Role } from '@brand/proto/access/v1';
import { planBody, randomHex, waitFor } from '@brand/testkit';
import { formAsPosted, type ConsoleHttp } from './browserlessClient';
import {
  approveSubmissions,
  brandWithOwner,
  signInHttp,
  type ReceiverStack,
} from './consoleActors';
import type { ConsoleStack } from './consoleStack';

/** Posts that end a session (sign-out, ending a session): a sweep that sent them would go on signed out. */
export const ENDS_A_SESSION = /\/sign-out|\/sessions\/[^/]+\/end$|\/sessions\/others\/end$/;

export type Form = Record<string, string | string[]>;

export interface Crawled {
  /** Each HTML page answered 200, as linked. */
  pages: string[];
  /** Each post form's action, and the form as a browser posts it untouched. */
  forms: Map<string, Form>;
  /** Each filter form's (method get) action, and the query it sends untouched. */
  filters: Map<string, Form>;
}

/** Same-origin paths a page links to or posts to. */
function pathsIn(html: string, attr: 'href' | 'action'): string[] {
  return [...html.matchAll(new RegExp(`${attr}="(/[^"]*)"`, 'g'))]
    .map((m) => m[1]!.replace(/&amp;/g, '&'))
    .filter((p) => !p.startsWith('//'));
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Every page `http` can reach from `/` and the brand's home (one page a path: queries are read
 * once), another brand's pages left out, up to `max` pages. Pages are only read: no form is sent.
 */
export async function crawl(http: ConsoleHttp, brandId: string, max = 150): Promise<Crawled> {
  const seen = new Set<string>();
  const queue = ['/', `/brands/${brandId}`];
  const found: Crawled = { pages: [], forms: new Map(), filters: new Map() };
  while (queue.length > 0 && found.pages.length < max) {
    const path = queue.shift()!;
    const key = path.split('?')[0]!;
    if (seen.has(key) || ENDS_A_SESSION.test(key)) continue;
    if (key.startsWith('/brands/') && !key.startsWith(`/brands/${brandId}`)) continue;
    seen.add(key);
    const res = await http.get(path);
    if (res.status >= 300 && res.status < 400 && res.location?.startsWith('/')) {
      queue.push(res.location);
      continue;
    }
    if (res.status !== 200 || !/text\/html/.test(res.headers.get('content-type') ?? '')) continue;
    found.pages.push(path);
    queue.push(...pathsIn(res.body, 'href'));
    for (const action of pathsIn(res.body, 'action')) {
      const at = escapeRe(action);
      const post = new RegExp(`method="post"[^>]*action="${at}"|action="${at}"[^>]*method="post"`);
      const into = post.test(res.body) ? found.forms : found.filters;
      if (!into.has(action)) into.set(action, formAsPosted(res.body, action));
    }
  }
  return found;
}

/**
 * A brand with one of everything an owner's pages list, so a crawl finds their pages and forms:
 * a receiver with two delivered events, a campaign plan, a key, an invitation, an audit stream, a
 * SCIM token and a second member signed in. The owner is signed in on `http`.
 */
export async function furnishedBrand(rs: ReceiverStack) {
  const { brand, owner } = await brandWithOwner(rs.cs);
  const receiver = await rs.receiverFor(brand.id, { label: `Orders ${randomHex(2)}` });
  await approveSubmissions(rs.cs, brand.id, 2);
  await waitFor(() => receiver.server.received.length >= 2, {
    timeoutMs: 30_000,
    what: 'both events delivered',
  });
  const second = await rs.cs.stack.admin.addMember({
    brandId: brand.id,
    email: `second-${randomHex(4)}@brand.test`,
    role: Role.ROLE_MEMBER,
  });
  await signInHttp(rs.cs, second.email);
  const http = await signInHttp(rs.cs, owner.email);
  /** Fills `fields` into the form posting to `to` on the area's page, and sends it. */
  const submit = async (area: string, fields: Form, to = area) => {
    const page = await http.get(`/brands/${brand.id}/${area}`);
    const action = `/brands/${brand.id}/${to}`;
    const res = await http.post(action, { ...formAsPosted(page.body, action), ...fields });
    if (res.status >= 400)
      throw new Error(
        `${action} answered ${res.status}: ${/role="alert"[^>]*>([^<]*)/.exec(res.body)?.[1] ?? ''}`,
      );
    if (res.location) await http.get(res.location);
  };
  await submit('keys', { name: 'Sweep key' });
  await submit('members', { email: `invited-${randomHex(4)}@brand.test` });
  // a destination nothing answers at: the stream's pages are what is wanted, not its deliveries
  await submit('audit-streams', {
    kind: 'https',
    label: 'SIEM',
    url: 'https://127.0.0.1:1026/audit',
  });
  await submit('provisioning', { name: 'Directory sync' }, 'provisioning/tokens');
  const planner = await rs.cs.stack.admin.createKey({
    brandId: brand.id,
    actorEmail: owner.email,
    name: 'Planner',
    permissions: ['campaigns:prepare'],
  });
  const planned = await fetch(`${rs.cs.stack.gateway.url}/api/v1/campaign-plans`, {
    method: 'POST',
    headers: { authorization: `Bearer ${planner.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(planBody({ request_id: randomUUID(), title: 'Summer launch' })),
  });
  if (planned.status !== 201) throw new Error(`the plan answered ${planned.status}`);
  return { brand, owner, receiver, http };
}

/**
 * How many entries a brand's activity logs hold (records', webhooks' and plans'): every change
 * any service makes to the brand writes one, so a sweep that changed nothing leaves it as it was.
 */
export async function activityCount(cs: ConsoleStack, brandId: string): Promise<number> {
  const { rows } = await cs.stack.db.pool.query<{ n: string }>(
    `select (select count(*) from records.activity where brand_id = $1)
          + (select count(*) from webhooks.activity where brand_id = $1)
          + (select count(*) from plans.activity where brand_id = $1) as n`,
    [brandId],
  );
  return Number(rows[0]!.n);
}
