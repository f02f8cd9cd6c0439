import { Layout, Notice, type Viewer } from './layout';
import type { Section } from './sectionNav';

/** The line a page or tab with actions shows to members who may only read. */
export function OwnersOnly(props: { viewer: Viewer; what: string }) {
  return (
    <Notice>
      Only brand owners {props.what}. You are a {props.viewer.role} of this brand.
    </Notice>
  );
}

export interface OwnersOnlyPageProps {
  title: string;
  section: Section;
  /** What only owners do, after "Only brand owners": "roll keys". */
  what: string;
  back: { href: string; label: string };
}

/** An owners-only page as a role that may only read sees it: its title, why, and the way back. */
export function OwnersOnlyPage(props: OwnersOnlyPageProps & { viewer: Viewer }) {
  return (
    <Layout title={props.title} viewer={props.viewer} section={props.section}>
      <p>
        <a href={props.back.href}>{props.back.label}</a>
      </p>
      <h1>{props.title}</h1>
      <OwnersOnly viewer={props.viewer} what={props.what} />
    </Layout>
  );
}
