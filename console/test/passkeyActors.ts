import { ConsoleHttp, csrfOf } from './browserlessClient';
import type { ConsoleStack } from './consoleStack';
import { SoftAuthenticator } from './softAuthenticator';

/** The options a ceremony route answered (JSON), failing the test on anything else. */
async function optionsFrom(http: ConsoleHttp, path: string, csrf?: string) {
  const res = await http.post(path, csrf === undefined ? {} : { _csrf: csrf });
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body) as {
    challenge: string;
    rp: { id?: string };
    user: { id: string };
    rpId?: string;
  };
}

/**
 * Adds a passkey to the signed-in `http` session through the console's routes, as
 * /static/passkey.js does: the options, the authenticator's answer, the form. Returns the
 * authenticator and the form's answer.
 */
export async function addPasskey(
  cs: ConsoleStack,
  http: ConsoleHttp,
  name: string,
  authenticator = new SoftAuthenticator(cs.url),
): Promise<{
  authenticator: SoftAuthenticator;
  status: number;
  location: string | null;
  body: string;
  response: string;
}> {
  const csrf = csrfOf((await http.get('/passkeys')).body);
  const options = await optionsFrom(http, '/passkeys/options', csrf);
  const response = authenticator.register(options);
  const done = await http.post('/passkeys', { _csrf: csrf, name, response });
  return { authenticator, status: done.status, location: done.location, body: done.body, response };
}

/** The options of a passkey sign-in, for a new client. */
export async function signInOptions(http: ConsoleHttp) {
  return optionsFrom(http, '/sign-in/passkey/options');
}

/** Signs in with the authenticator's passkey from a new client; the answer and the client. */
export async function signInWithPasskey(cs: ConsoleStack, authenticator: SoftAuthenticator) {
  const http = new ConsoleHttp(cs.url);
  const response = authenticator.assert(await signInOptions(http));
  const answer = await http.post('/sign-in/passkey', { response });
  return { http, answer, response };
}
