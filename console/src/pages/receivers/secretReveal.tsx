import type { Router } from 'express';
import type { ComponentChildren, VNode } from 'preact';
import type { ConsoleDeps } from '../../consoleDeps';
import { memberOf, notFound, viewerOf } from '../../session/memberSession';
import { Layout, Notice, SecretShownOnce, type Viewer } from '../../views/layout';
import { sendPage } from '../../views/render';
import { RECEIVER_ID } from './input';

/** The receiver's pages that show a signing secret: a new receiver's, a rotation's new one. */
type SecretSegment = 'created' | 'rotated';

/**
 * The page a receiver's new signing secret is shown on (and only there), without its reveal id:
 * where the POST that made it puts it, and where the GET takes it.
 */
export const receiverSecretPage = (brandId: string, receiverId: string, segment: SecretSegment) =>
  `/brands/${brandId}/receivers/${receiverId}/${segment}`;

/** What the one-time reveal holds between making a signing secret and showing it. */
export interface RevealedSecret {
  label: string;
  secret: string;
}

/** The words of one page that shows a signing secret once, and of the page once it is gone. */
export interface SecretRevealWords {
  title: string;
  heading: (label: string) => string;
  copyLabel: string;
  warning: ComponentChildren;
  next: ComponentChildren;
  gone: ComponentChildren;
  /** The receiver's tab to go on to: a path under its page, and a fragment. */
  backLink: { label: string; under?: string };
}

/** A signing secret on the one page that shows it (a new receiver's, a rotation's new one). */
export function SecretRevealPage(props: {
  viewer: Viewer;
  receiverId: string;
  created?: RevealedSecret;
  words: SecretRevealWords;
}) {
  const { viewer, created, words } = props;
  const back = `/brands/${viewer.brandId}/receivers/${props.receiverId}${words.backLink.under ?? ''}`;
  return (
    <Layout title={words.title} viewer={viewer} section="receivers" scripts={['/static/copy.js']}>
      {created ? (
        <>
          <h1>{words.heading(created.label)}</h1>
          <SecretShownOnce secret={created.secret} copyLabel={words.copyLabel}>
            {words.warning}
          </SecretShownOnce>
          <p>{words.next}</p>
        </>
      ) : (
        <>
          <h1>This secret is no longer shown</h1>
          <Notice tone="error">{words.gone}</Notice>
        </>
      )}
      <p>
        <a href={back}>{words.backLink.label}</a>
      </p>
    </Layout>
  );
}

/**
 * The GET that takes a secret out of the one-time reveal (GETDEL: a reload, the back button
 * or a copied URL finds nothing) and shows it: 200 the first time, 410 after.
 */
export function registerSecretReveal(
  router: Router,
  deps: ConsoleDeps,
  segment: SecretSegment,
  page: (props: { viewer: Viewer; receiverId: string; created?: RevealedSecret }) => VNode,
): void {
  router.get(`/receivers/:receiverId/${segment}/:revealId`, async (req, res) => {
    const s = memberOf(res);
    const receiverId = String(req.params.receiverId);
    if (!RECEIVER_ID.test(receiverId)) throw notFound();
    const shownOn = receiverSecretPage(s.brand.id, receiverId, segment);
    const created = (await deps.reveal.take(s.token, shownOn, String(req.params.revealId))) as
      RevealedSecret | undefined;
    sendPage(res, page({ viewer: viewerOf(s), receiverId, created }), created ? 200 : 410);
  });
}
