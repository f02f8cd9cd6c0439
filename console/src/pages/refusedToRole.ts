import type { Response } from 'express';
import { roleAllows, type ConsoleAction } from '@brand/shared/console';
import { viewerOf, type MemberSession } from '../session/memberSession';
import { OwnersOnlyPage, type OwnersOnlyPageProps } from '../views/ownersOnly';
import { sendPage } from '../views/render';

/**
 * An owners-only page (a key's roll, a receiver's removal) opened by its address by a role that
 * may not take its action is answered 403 with the page's title, why, and the way back: no form
 * that the service would then refuse. Such pages offered their form before (a sweep of every page
 * a role is not led to, 2026-12-02). True when the page was refused so; the route then stops.
 */
export function refusedToRole(
  res: Response,
  s: MemberSession,
  action: ConsoleAction,
  page: OwnersOnlyPageProps,
): boolean {
  if (roleAllows(s.role, action)) return false;
  sendPage(res, OwnersOnlyPage({ viewer: viewerOf(s), ...page }), 403);
  return true;
}
