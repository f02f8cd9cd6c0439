import type { Response } from 'express';
import { formRefusal } from './formRefusal';

/**
 * Runs a form's change: done, a 303 to `doneUrl` (the page with its notice); refused by the
 * service, the page again with the service's sentence, its status and X-Console-Error (the
 * stable code); anything else goes on to the error page.
 */
export async function runFormChange(
  res: Response,
  run: () => Promise<unknown>,
  opts: { doneUrl: string; refused: (message: string, httpStatus: number) => Promise<void> },
): Promise<void> {
  try {
    await run();
  } catch (err) {
    const refused = formRefusal(err);
    if (!refused) throw err;
    res.setHeader('X-Console-Error', refused.code);
    await opts.refused(refused.message, refused.httpStatus);
    return;
  }
  res.redirect(303, opts.doneUrl);
}
