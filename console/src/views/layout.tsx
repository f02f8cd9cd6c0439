import type { ComponentChildren } from 'preact';
import { Notice } from './notice';
import { ReceiverAttentionNotice, type ReceiverAttention } from './receiverAttention';
import { SectionNav, type Section } from './sectionNav';

export { Notice };

/** The person signed in, on the pages of their own (brands, invitations, sessions, passkeys). */
export interface Person {
  email: string;
  csrfToken: string;
}

/** What the header shows about the signed-in member on a brand's pages. */
export interface Viewer extends Person {
  role: string;
  brandId: string;
  brandName: string;
  /** Receivers failing or disabled by the service: one notice on every page of the brand. */
  attention?: ReceiverAttention[];
}

/**
 * Every page: a skip link, the header (brand, who is signed in, their own pages, sign-out),
 * on a brand's pages its sections (sectionNav.tsx) beside the main region. A person's own pages
 * (`person`) carry the same header without a brand, so who is signed in and the way out are in
 * one place on every signed-in page. Scripts are external files only (CSP script-src 'self').
 */
export function Layout(props: {
  title: string;
  viewer?: Viewer;
  person?: Person;
  section?: Section;
  scripts?: string[];
  children: ComponentChildren;
}) {
  const { viewer } = props;
  const who = viewer ?? props.person;
  const main = (
    <main id="main" tabIndex={-1}>
      {viewer?.attention && (
        <ReceiverAttentionNotice brandId={viewer.brandId} receivers={viewer.attention} />
      )}
      {props.children}
    </main>
  );
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Developers · Brand Records`}</title>
        <link rel="stylesheet" href="/static/console.css" />
        {(props.scripts ?? []).map((src) => (
          <script src={src} defer />
        ))}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <span class="brand">Developers{viewer ? ` · ${viewer.brandName}` : ''}</span>
          {who && (
            <div class="who">
              <span>{viewer ? `${viewer.email} (${viewer.role})` : who.email}</span>
              <a href="/brands">{viewer ? 'Switch brand' : 'Your brands'}</a>
              <a href="/invitations">Invitations</a>
              <a href="/sessions">Your sessions</a>
              <a href="/passkeys">Passkeys</a>
              <form class="inline" method="post" action="/sign-out">
                <input type="hidden" name="_csrf" value={who.csrfToken} />
                <button type="submit" class="secondary">
                  Sign out
                </button>
              </form>
            </div>
          )}
        </header>
        {viewer ? (
          <div class="shell">
            <SectionNav brandId={viewer.brandId} role={viewer.role} current={props.section} />
            {main}
          </div>
        ) : (
          main
        )}
      </body>
    </html>
  );
}

/** The hidden CSRF field every state-changing form carries. */
export function Csrf(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

/**
 * A key or signing secret on the one page that ever shows it: the warning, the value and a
 * copy button (shown by /static/copy.js; without JavaScript the value is selected by hand).
 */
export function SecretShownOnce(props: {
  secret: string;
  copyLabel: string;
  children: ComponentChildren;
}) {
  return (
    <>
      <Notice tone="warn">{props.children}</Notice>
      <code id="new-secret" class="secret">
        {props.secret}
      </code>
      <p class="actions">
        <button
          type="button"
          class="secondary"
          data-copy-target="new-secret"
          data-copy-status="copy-status"
          hidden
        >
          {props.copyLabel}
        </button>
        <span id="copy-status" class="copy-status" role="status"></span>
      </p>
    </>
  );
}
