import express, { type Router } from 'express';
import type { ConsoleDeps } from '../consoleDeps';
import { requireSession } from '../session/memberSession';
import { registerActivity } from './activity/route';
import { registerAuditStreams } from './auditStreams/route';
import { registerBrandDeliveries } from './deliveries/route';
import { registerEvents } from './events/route';
import { registerKeys } from './keys/route';
import { registerMemberSessions } from './memberSessions/route';
import { registerMembers } from './members/route';
import { registerOverview } from './overview/route';
import { registerPlans } from './plans/route';
import { registerProvisioning } from './provisioning/route';
import { loadReceiverAttention } from './receivers/attentionLoader';
import { registerReceivers } from './receivers/route';
import { registerSso } from './sso/route';
import { registerUsage } from './usage/route';

/**
 * Every page of one brand lives under /brands/:brandId/. Each request resolves the session
 * for that brand first (404 for a brand the member does not belong to, whatever the id) and
 * checks the CSRF token of a form, and a page (GET) learns which receivers need attention for
 * the notice every page shows; the page then calls the owning service as the member.
 */
export function registerBrandPages(router: Router, deps: ConsoleDeps): void {
  const brand = express.Router({ mergeParams: true });
  brand.use(requireSession(deps.clients, { brand: true }));
  brand.use(loadReceiverAttention(deps));
  registerOverview(brand, deps);
  registerKeys(brand, deps);
  registerUsage(brand, deps);
  registerReceivers(brand, deps);
  registerEvents(brand, deps);
  registerBrandDeliveries(brand, deps);
  registerPlans(brand, deps);
  registerMembers(brand, deps);
  registerMemberSessions(brand, deps);
  registerSso(brand, deps);
  registerProvisioning(brand, deps);
  registerActivity(brand, deps);
  registerAuditStreams(brand, deps);
  router.use('/brands/:brandId', brand);
}
