import { csrfOf, type ConsoleHttp } from './browserlessClient';
import type { ConsoleStack } from './consoleStack';

/** A SCIM answer: its status, its JSON body (or the text when it is none) and its headers. */
export interface ScimAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/**
 * An owner makes a SCIM token on the Provisioning page, as a person does (the form, then the
 * one-time page), and the test reads it off that page. Answers the token.
 */
export async function scimTokenOf(
  ownerHttp: ConsoleHttp,
  brandId: string,
  name = 'Test provider',
): Promise<string> {
  const page = await ownerHttp.get(`/brands/${brandId}/provisioning`);
  if (page.status !== 200) throw new Error(`Provisioning answered ${page.status}`);
  const made = await ownerHttp.post(`/brands/${brandId}/provisioning/tokens`, {
    _csrf: csrfOf(page.body),
    name,
  });
  if (made.status !== 303 || !made.location) throw new Error(`token form answered ${made.status}`);
  const shown = await ownerHttp.get(made.location);
  const token = /<code id="new-secret" class="secret">(scim_[A-Za-z0-9_-]{43})<\/code>/.exec(
    shown.body,
  )?.[1];
  if (!token) throw new Error('no SCIM token on the one-time page');
  return token;
}

/** A SCIM client as a provider is one: JSON over HTTP with the bearer token. */
export function scimClient(cs: ConsoleStack, token: string) {
  return async (
    method: string,
    path: string,
    body?: unknown,
    opts: {
      contentType?: string;
      rawBody?: string;
      authorization?: string;
      /** Gives up (the fetch rejects) after this long: for requests that must not hang. */
      timeoutMs?: number;
    } = {},
  ): Promise<ScimAnswer> => {
    const res = await fetch(`${cs.url}/scim/v2${path}`, {
      method,
      headers: {
        authorization: opts.authorization ?? `Bearer ${token}`,
        ...(body !== undefined || opts.rawBody !== undefined
          ? { 'content-type': opts.contentType ?? 'application/scim+json' }
          : {}),
      },
      body: opts.rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
      ...(opts.timeoutMs ? { signal: AbortSignal.timeout(opts.timeoutMs) } : {}),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      json = { text };
    }
    return { status: res.status, body: json, headers: res.headers };
  };
}

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SEARCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
