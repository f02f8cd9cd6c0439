import type { RequestHandler } from 'express';
import { ServiceCallError } from '../../clients/memberCaller';
import type { ConsoleDeps } from '../../consoleDeps';
import { memberOf } from '../../session/memberSession';
import { attentionOf } from './receiverHealthText';

/**
 * Before every page of a brand (GET), the receivers that need attention (failing, or
 * disabled by the service), for the one notice the layout shows on each page. Best effort:
 * when the webhooks service cannot answer, the keys or members page still works, without it.
 */
export function loadReceiverAttention(deps: ConsoleDeps): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    const s = memberOf(res);
    deps.clients
      .webhooks('listReceivers', { brand_id: s.brand.id }, { assertion: s.assertion })
      .then(
        ({ receivers }) => {
          s.receivers = receivers;
          s.attention = receivers.flatMap((r) => attentionOf(r) ?? []);
        },
        (err: unknown) => {
          if (!(err instanceof ServiceCallError)) throw err;
          deps.log.warn({ err }, 'receivers could not be checked for the attention notice');
        },
      )
      .then(() => next(), next);
  };
}
