import type { Response, Router } from 'express';
import type { SsoConnection } from '@brand/proto/access/v1/sso';
import { roleAllows } from '@brand/shared/console';
import type { ConsoleDeps } from '../../consoleDeps';
import { changedWhileSavingMessage, decideOntoRead } from '../../forms/ontoWhatWasRead';
import { changedFields, conflictMessage, keptForm, shownName } from '../../forms/shownFields';
import { runFormChange } from '../../http/formChange';
import { formRefusal } from '../../http/formRefusal';
import { memberOf, viewerOf, type MemberSession } from '../../session/memberSession';
import { doneNoticeOf } from '../../views/doneNotice';
import { sendPage } from '../../views/render';
import { ConnectionForm } from './input';
import { shownConnection, SsoNotAllowedPage, SsoPage, type SsoFormValues } from './view';

/** The connection's fields as a conflict names them. */
const FIELD_WORDS = {
  issuer: 'issuer URL',
  client_id: 'client id',
  allowed_domains: 'allowed email domains',
  enabled: 'use (members may sign in with it)',
} as const;

const NOTICES: Record<string, string> = {
  saved: 'Saved. Members at the verified domains can sign in with single sign-on.',
  removed: 'Single sign-on removed. Members sign in by emailed link or passkey.',
  verified: 'Domain verified: members at it can sign in with single sign-on.',
  checked: 'Checked: the domain is not verified yet (see why below).',
};

/** A domain as the Verify now form posts it (records checks it is one of the connection's). */
const DOMAIN_FIELD = /^[a-z0-9.-]{1,253}$/;

/** What a save sends (`changes`) or is refused over (`conflicts`): forms/shownFields.ts. */
type Decided<T> = { changes: Partial<T>; conflicts: (keyof T & string)[] };

/** Renders the page with the stored connection and what the request adds. */
type SsoPageRenderer = (
  res: Response,
  s: MemberSession,
  extra?: {
    notice?: string;
    error?: string;
    form?: SsoFormValues;
    conflicts?: readonly string[];
  },
  httpStatus?: number,
) => Promise<void>;

/**
 * A brand's single sign-on (owners only): connect the identity provider, change or disable
 * it, remove it. Records checks the role, reads the issuer's discovery document before
 * saving and seals the client secret; the page never shows the secret again.
 */
export function registerSso(router: Router, deps: ConsoleDeps): void {
  const page: SsoPageRenderer = async (res, s, extra = {}, httpStatus = 200) => {
    const { connection, change_proof } = await deps.clients.sso(
      'getSsoConnection',
      { brand_id: s.brand.id, session_token: s.token },
      { assertion: s.assertion },
    );
    sendPage(
      res,
      SsoPage({
        viewer: viewerOf(s),
        connection,
        changeProof: change_proof,
        origin: deps.publicOrigin,
        signInPolicy: s.brand.sign_in_policy,
        ...extra,
        form: extra.form ?? formOf(connection),
      }),
      httpStatus,
    );
  };

  router.get('/sso', async (req, res) => {
    const s = memberOf(res);
    if (!roleAllows(s.role, 'members.sso')) {
      sendPage(res, SsoNotAllowedPage({ viewer: viewerOf(s) }), 403);
      return;
    }
    const done = doneNoticeOf(NOTICES, req.query.done);
    await page(res, s, { notice: done });
  });

  router.post('/sso', async (req, res) => {
    const s = memberOf(res);
    const body = req.body as Record<string, unknown>;
    const typed = (k: string) => (typeof body[k] === 'string' ? body[k].slice(0, 2_000) : '');
    const form: SsoFormValues = {
      issuer: typed('issuer'),
      client_id: typed('client_id'),
      allowed_domains: typed('allowed_domains'),
      enabled: body.enabled === 'on',
    };
    const parsed = ConnectionForm.safeParse(body);
    if (!parsed.success) {
      await page(res, s, { form, error: parsed.error.issues[0]?.message }, 400);
      return;
    }
    // The connection is written whole: what the owner did not change is taken from it as it is
    // now, not from the page, which another owner may have saved over since it was opened
    // (forms/shownFields.ts): a domain edit from an older page turned single sign-on back on
    // just after another owner had disabled it (a hostile review of lost updates, 2026-12-01).
    // Records writes it only onto the connection read here (if_updated_at); changed before the
    // write, it is read again and decided once more (forms/ontoWhatWasRead.ts). That was a 422
    // "reload it and save again", the owner's typing lost.
    const readConnection = async () =>
      (
        await deps.clients.sso(
          'getSsoConnection',
          { brand_id: s.brand.id, session_token: s.token },
          { assertion: s.assertion },
        )
      ).connection;
    const posted = {
      issuer: parsed.data.issuer,
      client_id: parsed.data.client_id,
      allowed_domains: parsed.data.allowed_domains,
      enabled: parsed.data.enabled ?? '',
    };
    const read = await readConnection();
    // None read for this request but one found on reading again: another owner's first connection
    // committed before this one's write. Decided against the empty form the page showed, a field
    // the two set differently is a conflict, not written over theirs (as records' refusal of a
    // second first connection keeps it).
    const shownBody = read
      ? body
      : { ...body, ...Object.fromEntries(Object.keys(posted).map((n) => [shownName(n), ''])) };
    const decide = (connection: SsoConnection | undefined): Decided<typeof posted> => {
      if (!connection) return { changes: posted, conflicts: [] };
      const now = shownConnection(connection);
      const decided = changedFields(shownBody, posted, now);
      // A new secret was given for the provider the page showed: if another owner changed the
      // issuer or client id since, it must not go to theirs.
      if (parsed.data.client_secret !== '') {
        for (const name of ['issuer', 'client_id'] as const) {
          const shown = shownBody[shownName(name)];
          const movedByOthers = typeof shown === 'string' && shown !== now[name];
          if (movedByOthers && posted[name] !== now[name] && !decided.conflicts.includes(name)) {
            decided.conflicts.push(name);
          }
        }
      }
      return decided;
    };
    let saved;
    try {
      saved = await decideOntoRead({
        read,
        readAgain: readConnection,
        decide,
        write: async (connection, { changes }) => {
          const next = connection ? { ...shownConnection(connection), ...changes } : posted;
          await deps.clients.sso(
            'setSsoConnection',
            {
              brand_id: s.brand.id,
              issuer: next.issuer,
              client_id: next.client_id,
              client_secret: parsed.data.client_secret,
              allowed_domains: [...next.allowed_domains],
              enabled: next.enabled === 'on',
              session_token: s.token,
              if_updated_at: connection?.updated_at ?? '',
            },
            { assertion: s.assertion },
          );
        },
      });
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      res.setHeader('X-Console-Error', refused.code);
      await page(res, s, { form, error: refused.message }, refused.httpStatus);
      return;
    }
    if (saved.outcome !== 'written') {
      const { conflicts } = saved.decided;
      const now = saved.read && shownConnection(saved.read);
      res.setHeader('X-Console-Error', 'edit_conflict');
      const error =
        now && conflicts.length > 0
          ? conflictMessage(
              conflicts.map((f) => ({
                label: FIELD_WORDS[f],
                now: f === 'enabled' ? (now.enabled ? 'on' : 'off') : now[f],
              })),
            )
          : changedWhileSavingMessage('single sign-on connection');
      // what the owner changed as they typed it, the rest as it is now: a box left ticked on
      // their page must not turn single sign-on back on at the next save
      const kept = keptForm(form, formOf(saved.read), saved.decided);
      await page(res, s, { form: kept, error, conflicts: now ? conflicts : [] }, 409);
      return;
    }
    res.redirect(303, `/brands/${s.brand.id}/sso?done=saved`);
  });

  registerVerifyDomain(router, deps, page);

  router.post('/sso/remove', async (_req, res) => {
    const s = memberOf(res);
    await runFormChange(
      res,
      () =>
        deps.clients.sso(
          'removeSsoConnection',
          { brand_id: s.brand.id, session_token: s.token },
          { assertion: s.assertion },
        ),
      {
        doneUrl: `/brands/${s.brand.id}/sso?done=removed`,
        refused: (error, httpStatus) => page(res, s, { error }, httpStatus),
      },
    );
  });
}

/**
 * "Verify now" on one domain: records looks up its TXT record and answers the domain's state;
 * the page shows it (a domain still unproven says why in its row).
 */
function registerVerifyDomain(router: Router, deps: ConsoleDeps, page: SsoPageRenderer): void {
  router.post('/sso/domains/verify', async (req, res) => {
    const s = memberOf(res);
    const domain = (req.body as Record<string, unknown>).domain;
    if (typeof domain !== 'string' || !DOMAIN_FIELD.test(domain)) {
      await page(res, s, { error: 'Choose a domain of the connection to verify.' }, 400);
      return;
    }
    let state: string;
    try {
      const verified = await deps.clients.sso(
        'verifySsoDomain',
        { brand_id: s.brand.id, domain },
        { assertion: s.assertion },
      );
      state = verified.domain?.state ?? '';
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      res.setHeader('X-Console-Error', refused.code);
      await page(res, s, { error: refused.message }, refused.httpStatus);
      return;
    }
    const done = state === 'verified' ? 'verified' : 'checked';
    res.redirect(303, `/brands/${s.brand.id}/sso?done=${done}#domain-${domain}`);
  });
}

function formOf(c: SsoConnection | undefined): SsoFormValues {
  return {
    issuer: c?.issuer ?? '',
    client_id: c?.client_id ?? '',
    allowed_domains: c?.allowed_domains.join('\n') ?? '',
    enabled: c?.enabled ?? true,
  };
}
