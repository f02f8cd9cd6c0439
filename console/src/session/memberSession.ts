import { createHmac } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import type { Request, RequestHandler, Response } from 'express';
import type { Brand, Member } from '@brand/proto/access/v1';
import type { Receiver } from '@brand/proto/webhooks/v1';
import type { BrandMembership } from '@brand/proto/access/v1/sessions';
import { ROLES, TIERS, type RoleName, type TierName } from '@brand/shared/enums';
import type { ConsoleClients } from '../clients/consoleClients';
import { ServiceCallError } from '../clients/memberCaller';
import { assertCsrfToken, CSRF_FIELD } from '../csrf/csrfToken';
import { ConsoleHttpError } from '../http/consoleHttpError';
import { returnPathOf, signInHref } from '../http/returnPath';
import type { Person, Viewer } from '../views/layout';
import type { ReceiverAttention } from '../views/receiverAttention';
import { clearSessionCookie, readSessionToken } from './sessionCookie';

/** A signed-in address, before a brand is chosen (the brand picker, signing out). */
export interface SignedIn {
  token: string;
  email: string;
  csrfToken: string;
  brands: BrandMembership[];
  /** How the session was opened: "link", "passkey" or "sso" (records' words). */
  signInMethod: string;
  /**
   * The brand whose single sign-on opened the session, which then speaks for that brand alone
   * (not for the address: no passkeys, no sessions beyond it); undefined for a link or passkey.
   */
  ssoBrand?: { id: string; name: string };
}

/** A signed-in member acting on one brand: what every brand page works with. */
export interface MemberSession extends SignedIn {
  brand: Brand;
  member: Member;
  role: RoleName;
  tier: TierName;
  /** Sent on every call made for the member; the owning service checks the role itself. */
  assertion: string;
  /** Receivers failing or disabled by the service, for the notice on every page (GET only). */
  attention?: ReceiverAttention[];
  /** The brand's receivers as that notice's loader read them for this GET (the receivers page reuses them). */
  receivers?: Receiver[];
}

/** The form token of a session: derived from its CSRF secret, never the secret itself. */
function csrfTokenOf(csrfSecret: string): string {
  return createHmac('sha256', csrfSecret).update('console-form-token').digest('base64url');
}

/**
 * Resolves the session on every request (records reads its database each time, so a member
 * removed or a brand dropping below Plus is refused at once). With `brand`, the member's
 * standing on the brand in the URL: another brand's id is 404, whatever the session. On a
 * state-changing request the form's CSRF token must match the session's.
 */
export function requireSession(
  clients: ConsoleClients,
  opts: {
    brand: boolean;
    /**
     * What to answer instead when there is no live session (no cookie, or the session ended):
     * by default a page goes to sign in and a form is refused (toSignIn).
     */
    withoutSession?: (res: Response) => void;
  },
): RequestHandler {
  const withoutSession = opts.withoutSession;
  return (req, res, next) => {
    void (async () => {
      const session = await resolve(clients, req, res, opts.brand, withoutSession);
      if (!session) return;
      if (req.method === 'POST') {
        const posted = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
        assertCsrfToken(posted, session.csrfToken);
      }
      res.locals.session = session;
      next();
    })().catch(next);
  };
}

async function resolve(
  clients: ConsoleClients,
  req: Request,
  res: Response,
  withBrand: boolean,
  withoutSession: (res: Response) => void = (r) => toSignIn(req, r),
): Promise<SignedIn | MemberSession | undefined> {
  const token = readSessionToken(req);
  if (!token) {
    withoutSession(res);
    return undefined;
  }
  const brandId = withBrand ? String(req.params.brandId ?? '') : '';
  if (withBrand && !/^br_[A-Za-z0-9]{1,64}$/.test(brandId))
    throw await keepingHeader(clients, req, res, notFound());
  try {
    const r = await clients.sessions('resolveConsoleSession', {
      session_token: token,
      brand_id: brandId,
    });
    const ssoBrand = r.brands.find((m) => m.brand?.id === r.sso_brand_id)?.brand;
    const base: SignedIn = {
      token,
      email: r.email,
      csrfToken: csrfTokenOf(r.csrf_secret),
      brands: r.brands,
      signInMethod: r.sign_in_method,
      ssoBrand:
        r.sso_brand_id === ''
          ? undefined
          : { id: r.sso_brand_id, name: ssoBrand?.name ?? 'your brand' },
    };
    if (!withBrand) return base;
    if (!r.brand || !r.member) {
      if (readsPage(req)) res.locals.session = base; // the 404 keeps the person's header
      throw notFound();
    }
    return {
      ...base,
      brand: r.brand,
      member: r.member,
      // Unknown values read as the least privilege.
      role: ROLES.fromProto(r.member.role) ?? 'member',
      tier: TIERS.fromProto(r.brand.tier) ?? 'free',
      assertion: r.member_assertion,
    };
  } catch (err) {
    if (err instanceof ServiceCallError && err.grpcStatus === status.UNAUTHENTICATED) {
      clearSessionCookie(res);
      withoutSession(res);
      return undefined;
    }
    if (err instanceof ServiceCallError && err.grpcStatus === status.NOT_FOUND)
      throw withBrand ? await keepingHeader(clients, req, res, notFound()) : notFound();
    // the person is signed in, the brand refuses this session: the 403 keeps their header (read
    // without the brand, so only a brand's refusal reads it: the read itself cannot recur)
    const keepHeader = (refusal: ConsoleHttpError): Promise<ConsoleHttpError> =>
      withBrand ? keepingHeader(clients, req, res, refusal) : Promise.resolve(refusal);
    if (err instanceof ServiceCallError && err.code === 'sign_in_method_required') {
      throw await keepHeader(signInMethodRequired(err.message, brandId));
    }
    if (err instanceof ServiceCallError && err.grpcStatus === status.FAILED_PRECONDITION) {
      throw await keepHeader(
        new ConsoleHttpError(
          403,
          err.code,
          'This brand cannot use the Developers area now: it must be verified and on the Plus tier or above.',
        ),
      );
    }
    throw err;
  }
}

/**
 * The 403 of a brand whose sign-in policy refuses this session, with a real link to the way in
 * it admits: the brand's own single sign-on, or "Your passkeys" to add one first.
 */
function signInMethodRequired(message: string, brandId: string): ConsoleHttpError {
  return message.includes('single sign-on')
    ? new ConsoleHttpError(403, 'sign_in_method_required', message, {
        href: `/sign-in/sso?brand=${brandId}`,
        label: 'Sign in with single sign-on',
      })
    : new ConsoleHttpError(
        403,
        'sign_in_method_required',
        `${message} Add a passkey, then sign out and choose “Sign in with a passkey”.`,
        { href: '/passkeys', label: 'Your passkeys' },
      );
}

/** An assertion lives 60 s (records); one older than this is replaced before the next call. */
const ASSERTION_REFRESH_MS = 30_000;

/**
 * The member assertion for work that outlives one (an export of 100,000 rows can take
 * minutes): the session's own at first, then re-resolved from the session every 30 s. So a
 * long export never fails on an expired assertion, and a member removed or signed out
 * meanwhile is refused at the next page, as on any request.
 */
export function freshAssertion(clients: ConsoleClients, s: MemberSession): () => Promise<string> {
  let assertion = s.assertion;
  let at = Date.now();
  return async () => {
    if (Date.now() - at >= ASSERTION_REFRESH_MS) {
      const r = await clients.sessions('resolveConsoleSession', {
        session_token: s.token,
        brand_id: s.brand.id,
      });
      if (!r.member_assertion) throw notFound();
      assertion = r.member_assertion;
      at = Date.now();
    }
    return assertion;
  };
}

/**
 * Pages send people to sign in, carrying the page asked for (the console's root needs none:
 * a sign-in lands on the brand's overview anyway), where the sign-in lands once; a form post
 * without a session is refused outright (what it would have changed is not done), with the way
 * to sign in again, whose Sign in carries the form's page (the 401 page, errors/errorPage.tsx).
 */
function toSignIn(req: Request, res: Response): void {
  if (req.method === 'GET' || req.method === 'HEAD') {
    // req.path is the mounted router's (a brand's overview reads "/"): the root is originalUrl's
    const asked = returnPathOf(req, '');
    res.redirect(303, signInHref(asked === '/' ? undefined : asked));
    return;
  }
  throw new ConsoleHttpError(
    401,
    'not_signed_in',
    'You are not signed in (or your session ended), so this was not done. Sign in again.',
    { href: '/sign-in', label: 'Sign in' },
  );
}

/**
 * The answer of an address no route took: 404, "There is nothing here." A page's GET or HEAD
 * that brings a live session reads it first, so the page keeps the person's header (who is
 * signed in, Sign out) as every other page does; a post, no session, or a session records
 * refuses or cannot read now gets the plain header.
 */
export function notFoundPage(clients: ConsoleClients): RequestHandler {
  return (req, res, next) => {
    if (!readSessionToken(req)) {
      next(notFound());
      return;
    }
    keepingHeader(clients, req, res, notFound()).then(next, next);
  };
}

/**
 * `refusal` (a 404, or a brand's 403 of a live session), with the person's session read without
 * the brand, so a page keeps their own header as every other does; the 404 of another brand's
 * page (or of no brand) names nothing of that brand. A form's post, or a session records
 * refuses or cannot read now, is answered with the plain header; the refusal stands either way.
 */
async function keepingHeader(
  clients: ConsoleClients,
  req: Request,
  res: Response,
  refusal: ConsoleHttpError,
): Promise<ConsoleHttpError> {
  // a page under the person's own brand that no route took: its session was read already
  if (!readsPage(req) || res.locals.session !== undefined) return refusal;
  const session = await resolve(clients, req, res, false, () => undefined).catch(() => undefined);
  if (session) res.locals.session = session;
  return refusal;
}

/** A page asked for (GET or HEAD), not a form's post. */
function readsPage(req: Request): boolean {
  return req.method === 'GET' || req.method === 'HEAD';
}

export function notFound(): ConsoleHttpError {
  return new ConsoleHttpError(404, 'not_found', 'There is nothing here.');
}

export function signedInOf(res: Response): SignedIn {
  return res.locals.session as SignedIn;
}

/**
 * The person this request's session was read for, when it was (requireSession ran and passed):
 * the error page keeps their header. Undefined when no session was read (no route matched, the
 * session or its form token was refused).
 */
export function signedInPersonOf(res: Response): Person | undefined {
  const session = res.locals.session as SignedIn | undefined;
  return session && { email: session.email, csrfToken: session.csrfToken };
}

export function memberOf(res: Response): MemberSession {
  return res.locals.session as MemberSession;
}

/** What the page header shows. */
export function viewerOf(session: MemberSession): Viewer {
  return {
    email: session.email,
    role: session.role,
    brandId: session.brand.id,
    brandName: session.brand.name,
    csrfToken: session.csrfToken,
    attention: session.attention,
  };
}
