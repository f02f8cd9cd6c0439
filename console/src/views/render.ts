import type { Response } from 'express';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/**
 * Sends a page. preact escapes every text and attribute value, so data from services
 * (labels, URLs, emails) cannot become markup.
 */
export function sendPage(res: Response, page: VNode, status = 200): void {
  res
    .status(status)
    .type('text/html; charset=utf-8')
    .send(`<!doctype html>${renderToString(page)}`);
}
