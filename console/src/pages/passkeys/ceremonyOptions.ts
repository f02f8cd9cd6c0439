import type { Response } from 'express';
import { ServiceCallError } from '../../clients/memberCaller';
import { formRefusal } from '../../http/formRefusal';

/**
 * Answers /static/passkey.js's request for ceremony options: the JSON records made, or the
 * refusal as `{ code, message }` with its status (the script shows the message). Anything that
 * is not a refusal goes to the error page.
 */
export async function sendCeremonyOptions(
  res: Response,
  ask: () => Promise<{ options_json: string }>,
): Promise<void> {
  try {
    const { options_json } = await ask();
    res.type('application/json').send(options_json);
  } catch (err) {
    const refused = formRefusal(err);
    const limited =
      err instanceof ServiceCallError && err.code === 'rate_limited'
        ? { httpStatus: 429, message: err.message }
        : undefined;
    const answer = refused ?? limited;
    if (!answer || !(err instanceof ServiceCallError)) throw err;
    if (err.retryAfterSeconds !== undefined) {
      res.setHeader('Retry-After', String(err.retryAfterSeconds));
    }
    res.status(answer.httpStatus).json({ code: err.code, message: answer.message });
  }
}
