import express, { type Router } from 'express';
import type { ConsoleDeps } from '../app';
import { requireSession } from '../session/memberSession';
import { registerActivity } from './activity/route';
import { registerKeys } from './keys/route';
import { registerMembers } from './members/route';
import { registerPlans } from './plans/route';
import { registerReceivers } from './receivers/route';

/**
 * Every page of one brand lives under /brands/:brandId/. Each request resolves the session
 * for that brand first (404 for a brand the member does not belong to, whatever the id) and
 * checks the CSRF token of a form; the page then calls the owning service as the member.
 */
export function registerBrandPages(router: Router, deps: ConsoleDeps): void {
  const brand = express.Router({ mergeParams: true });
  brand.use(requireSession(deps.clients, { brand: true }));
  brand.get('/', (req, res) =>
    res.redirect(303, `/brands/${String((req.params as { brandId?: string }).brandId)}/keys`),
  );
  registerKeys(brand, deps);
  registerReceivers(brand, deps);
  registerPlans(brand, deps);
  registerMembers(brand, deps);
  registerActivity(brand, deps);
  router.use('/brands/:brandId', brand);
}
