import type { Request, Response, Router } from 'express';
import type { ApiKey } from '@brand/proto/access/v1';
import type { ConsoleDeps } from '../../consoleDeps';
import { changedFields, conflictMessage } from '../../forms/shownFields';
import { formRefusal } from '../../http/formRefusal';
import { changedWhileSavingMessage, decideOntoRead } from '../../forms/ontoWhatWasRead';
import { memberOf, notFound, viewerOf, type MemberSession } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { KEY_ID, KeyNetworksForm } from './input';
import type { KeysPageProps } from './view';
import { KeyNetworksPage } from './networksView';
import { ownersOnlyKeyPage } from './ownersOnlyKeyPage';
import { refusedToRole } from '../refusedToRole';

/**
 * A textarea of networks, as the form sends it, into entries; records reads and checks them. A
 * blank textarea is no networks (any network); one holding only separators (`,`) is sent as it
 * is, so records refuses it ("names no network") rather than it opening the key to any network
 * (a review of 2026-11-30). Cut to 200, records' limit for an entry: separators all the same.
 */
export function splitNetworks(text: string): string[] {
  const entries = text.split(/[\s,]+/).filter((s) => s !== '');
  const typed = text.trim();
  return entries.length === 0 && typed !== '' ? [typed.slice(0, 200)] : entries;
}

/** What the keys page's own routes lend the networks pages. */
interface KeysPageParts {
  pathKey: (req: Request, s: MemberSession) => Promise<ApiKey>;
  listPage: (
    res: Response,
    s: MemberSession,
    extra?: Partial<KeysPageProps>,
    httpStatus?: number,
  ) => Promise<void>;
}

/**
 * Keys bound to networks (issue 63): a key's allowed networks (a page per key, owners) and the
 * brand's key policy (a form on the keys page). Records reads the networks, checks the policy
 * and tells the gateways; a refusal is shown in words with its status (400, 422).
 */
export function registerKeyNetworks(router: Router, deps: ConsoleDeps, keys: KeysPageParts): void {
  router.get('/keys/:keyId/networks', async (req, res) => {
    const s = memberOf(res);
    const apiKey = await keys.pathKey(req, s);
    const page = ownersOnlyKeyPage(s, 'Allowed networks', "set a key's allowed networks");
    if (refusedToRole(res, s, 'keys.networks', page)) return;
    sendPage(res, KeyNetworksPage({ viewer: viewerOf(s), apiKey }));
  });

  router.post('/keys/:keyId/networks', async (req, res) => {
    const s = memberOf(res);
    const keyId = String(req.params.keyId);
    if (!KEY_ID.test(keyId)) throw notFound();
    // Records refuses a role that may not set networks, at the write. A post that changes nothing
    // writes nothing, so without this it answered "saved" to a member too (a sweep of every form a
    // role is not shown, 2026-12-02).
    const page = ownersOnlyKeyPage(s, 'Allowed networks', "set a key's allowed networks");
    if (refusedToRole(res, s, 'keys.networks', page)) return;
    const form = KeyNetworksForm.safeParse(req.body);
    if (!form.success) {
      const sent = (req.body as Record<string, unknown> | undefined)?.allowed_networks;
      sendPage(
        res,
        KeyNetworksPage({
          viewer: viewerOf(s),
          apiKey: await keys.pathKey(req, s),
          typed: typeof sent === 'string' ? sent.slice(0, 4000) : '',
          error: form.error.issues[0]?.message,
        }),
        400,
      );
      return;
    }
    const typed = form.data.allowed_networks;
    // The list as a whole is one field of the shown-fields rule (forms/shownFields.ts): the page
    // posts all of it, and a save from a page opened earlier put back a network another owner
    // had just removed (a hostile review of lost updates, 2026-12-01). Changed since it was shown
    // and changed by this person too: refused, naming it; left as shown: nothing is written.
    // Written only over the list it was decided on (if_allowed_networks), read again and decided
    // once more if it changed before the write (forms/ontoWhatWasRead.ts).
    const posted = { allowed_networks: splitNetworks(typed) };
    const read = await keys.pathKey(req, s);
    let saved;
    try {
      saved = await decideOntoRead({
        read,
        readAgain: () => keys.pathKey(req, s),
        decide: (key) =>
          changedFields(req.body as Record<string, unknown>, posted, {
            allowed_networks: key.allowed_networks,
          }),
        write: async (key, { changes }) => {
          if (!changes.allowed_networks) return;
          await deps.clients.access(
            'setKeyNetworks',
            {
              key_id: keyId,
              allowed_networks: changes.allowed_networks,
              actor_email: '',
              if_allowed_networks: { allowed_networks: key.allowed_networks },
            },
            { assertion: s.assertion },
          );
        },
      });
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      const apiKey = await keys.pathKey(req, s);
      sendPage(
        res,
        KeyNetworksPage({ viewer: viewerOf(s), apiKey, typed, error: refused.message }),
        refused.httpStatus,
      );
      return;
    }
    if (saved.outcome !== 'written') {
      const now = saved.read;
      res.setHeader('X-Console-Error', 'edit_conflict');
      const error =
        saved.decided.conflicts.length > 0
          ? conflictMessage([
              {
                label: 'allowed networks',
                now: now.allowed_networks.length > 0 ? now.allowed_networks : 'any network',
              },
            ])
          : changedWhileSavingMessage('allowed networks');
      const conflict = saved.decided.conflicts.length > 0;
      sendPage(
        res,
        KeyNetworksPage({ viewer: viewerOf(s), apiKey: now, typed, error, conflict }),
        409,
      );
      return;
    }
    res.redirect(303, `/brands/${s.brand.id}/keys?networks=${keyId}`);
  });

  router.post('/keys/policy', async (req, res) => {
    const s = memberOf(res);
    const body = req.body as Record<string, unknown>;
    const require = body.require_key_networks === 'on';
    try {
      await deps.clients.access(
        'setKeyPolicy',
        { brand_id: s.brand.id, require_key_networks: require, actor_email: '' },
        { assertion: s.assertion },
      );
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await keys.listPage(res, s, { error: refused.message }, refused.httpStatus);
      return;
    }
    res.redirect(303, `/brands/${s.brand.id}/keys?policy=${require ? 'on' : 'off'}`);
  });
}
