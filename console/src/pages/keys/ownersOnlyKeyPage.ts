import type { MemberSession } from '../../session/memberSession';
import type { OwnersOnlyPageProps } from '../../views/ownersOnly';

/** A key's owners-only page (its roll, revocation, networks) as a role that may only read sees it. */
export function ownersOnlyKeyPage(
  s: MemberSession,
  title: string,
  what: string,
): OwnersOnlyPageProps {
  return {
    title,
    section: 'keys',
    what,
    back: { href: `/brands/${s.brand.id}/keys`, label: 'Back to API keys' },
  };
}
