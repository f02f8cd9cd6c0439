import type { Receiver } from '@brand/proto/webhooks/v1';
import type { ComponentChildren } from 'preact';
import { Layout, Notice, type Viewer } from '../../views/layout';
import { RefusalNotice, type NamedField } from '../../views/refusal';
import { ReceiverHealthText } from './receiverHealthText';

/** What the member may do on a receiver's pages, from the permission table. */
export interface ReceiverRights {
  canManage: boolean;
  canTest: boolean;
  canResend: boolean;
  canRetry: boolean;
  canRecover: boolean;
  /** Start or cancel a rotation, and Test with its new secret. */
  canRotate: boolean;
  canSwitch: boolean;
  canSeeHealth: boolean;
}

/**
 * A receiver's pages, one tab each (issue 62: one column of everything was 7,124 px tall):
 * its state and health, its delivery log, testing it (and the guide), recovering after an
 * outage, and its settings (the secret, edit, disable, remove). Each is its own URL, so a tab
 * works without JavaScript and can be linked to.
 */
export const RECEIVER_TABS = {
  overview: { label: 'Overview', path: '' },
  deliveries: { label: 'Deliveries', path: '/deliveries' },
  testing: { label: 'Testing', path: '/testing' },
  recovery: { label: 'Recovery', path: '/recovery' },
  settings: { label: 'Settings', path: '/settings' },
} as const;
export type ReceiverTab = keyof typeof RECEIVER_TABS;

/** The address of a receiver's tab. */
export const receiverTabPath = (brandId: string, receiverId: string, tab: ReceiverTab): string =>
  `/brands/${brandId}/receivers/${receiverId}${RECEIVER_TABS[tab].path}`;

/**
 * What every tab of a receiver shares: its name and health in a line, what just happened
 * (`notice`) or went wrong (`error`), the tabs (the current one marked), then the tab.
 */
export function ReceiverFrame(props: {
  viewer: Viewer;
  receiver: Receiver;
  tab: ReceiverTab;
  notice?: string;
  error?: string;
  /** The fields `error` names, linked from it (a refused settings form). */
  errorFields?: readonly NamedField[];
  scripts?: string[];
  children: ComponentChildren;
}) {
  const { viewer, receiver: r, tab } = props;
  return (
    <Layout
      title={`${r.label}: ${RECEIVER_TABS[tab].label}`}
      viewer={viewer}
      section="receivers"
      scripts={props.scripts}
    >
      <p class="crumbs">
        <a href={`/brands/${viewer.brandId}/receivers`}>All receivers</a>
      </p>
      <h1>{r.label}</h1>
      <p class="receiver-status">
        <code>{r.url}</code> · <ReceiverHealthText receiver={r} />
      </p>
      <nav aria-label="Receiver" class="tabs">
        <ul>
          {(Object.keys(RECEIVER_TABS) as ReceiverTab[]).map((t) => (
            <li>
              <a
                href={receiverTabPath(viewer.brandId, r.id, t)}
                aria-current={t === tab ? 'page' : undefined}
              >
                {RECEIVER_TABS[t].label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      <RefusalNotice message={props.error} fields={props.errorFields} />
      {props.children}
    </Layout>
  );
}
