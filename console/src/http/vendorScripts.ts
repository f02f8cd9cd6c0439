import path from 'node:path';
import type { Express } from 'express';

/**
 * @simplewebauthn/browser's own UMD bundle (it defines `SimpleWebAuthnBrowser`), served from the
 * console like its other scripts: no CDN, so script-src 'self' holds and the version is the one
 * package-lock.json pins. The package exports no subpath for it, so it is found beside its entry.
 */
const SIMPLEWEBAUTHN_BUNDLE = path.join(
  path.dirname(require.resolve('@simplewebauthn/browser')),
  '../dist/bundle/index.umd.min.js',
);

export const SIMPLEWEBAUTHN_SCRIPT = '/static/vendor/simplewebauthn-browser.js';

export function serveVendorScripts(app: Express): void {
  app.get(SIMPLEWEBAUTHN_SCRIPT, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('application/javascript').sendFile(SIMPLEWEBAUTHN_BUNDLE);
  });
}
