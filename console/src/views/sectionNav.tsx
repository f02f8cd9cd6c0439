import { roleAllows, type ConsoleAction } from '@brand/shared/console';
import { ROLES } from '@brand/shared/enums';

export type Section =
  | 'overview'
  | 'keys'
  | 'usage'
  | 'requests'
  | 'receivers'
  | 'events'
  | 'deliveries'
  | 'plans'
  | 'members'
  | 'sso'
  | 'provisioning'
  | 'activity'
  | 'auditStreams';

interface SectionLink {
  id: Section;
  label: string;
  /** Its path under /brands/<id>; the overview is the brand's own address. */
  path: string;
  /** An action of the permission table the page needs: listed only for roles it allows. */
  needs?: ConsoleAction;
}

/**
 * The brand's pages grouped by what people come to do (issue 62): integrate (keys, and what
 * they spend and why a request was refused), events (receivers, every event, every delivery),
 * plans, and the brand's settings. A group without a name is a single page.
 */
const GROUPS: { name?: string; links: SectionLink[] }[] = [
  { links: [{ id: 'overview', label: 'Overview', path: '' }] },
  {
    name: 'Integrate',
    links: [
      { id: 'keys', label: 'API keys', path: '/keys' },
      { id: 'usage', label: 'Usage', path: '/usage' },
      { id: 'requests', label: 'Request log', path: '/requests' },
    ],
  },
  {
    name: 'Events',
    links: [
      { id: 'receivers', label: 'Receivers', path: '/receivers' },
      { id: 'events', label: 'Events', path: '/events', needs: 'deliveries.read' },
      { id: 'deliveries', label: 'Deliveries', path: '/deliveries', needs: 'deliveries.read' },
    ],
  },
  { links: [{ id: 'plans', label: 'Campaign plans', path: '/plans' }] },
  {
    name: 'Settings',
    links: [
      { id: 'members', label: 'Members', path: '/members' },
      { id: 'sso', label: 'Single sign-on', path: '/sso', needs: 'members.sso' },
      {
        id: 'provisioning',
        label: 'Provisioning',
        path: '/provisioning',
        needs: 'members.provisioning',
      },
      { id: 'activity', label: 'Activity', path: '/activity' },
      { id: 'auditStreams', label: 'Audit streams', path: '/audit-streams' },
    ],
  },
];

/** Whether `role` may do `action` (an unknown role reads as the least privilege). */
function roleMay(role: string, action: ConsoleAction): boolean {
  return roleAllows(ROLES.names.find((r) => r === role) ?? 'member', action);
}

/**
 * The brand's sections: a side bar on a wide screen, a few short rows above the page on a
 * narrow one (console.css), the current page marked for people (bold, a bar) and for
 * assistive technology (aria-current).
 */
export function SectionNav(props: { brandId: string; role: string; current?: Section }) {
  const base = `/brands/${props.brandId}`;
  const link = (l: SectionLink) => (
    <li>
      <a href={`${base}${l.path}`} aria-current={props.current === l.id ? 'page' : undefined}>
        {l.label}
      </a>
    </li>
  );
  return (
    <nav aria-label="Sections" class="sections">
      <ul>
        {GROUPS.map((g) => {
          const links = g.links.filter((l) => !l.needs || roleMay(props.role, l.needs));
          if (!g.name) return links.map(link);
          const id = `nav-${g.name.toLowerCase()}`;
          return (
            <li class="group">
              <span class="group-name" id={id}>
                {g.name}
              </span>
              <ul aria-labelledby={id}>{links.map(link)}</ul>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
