import { status } from '@grpc/grpc-js';
import { html } from '../../../test/receiverFixtures';
import type { ConsoleClients } from '../../clients/consoleClients';
import { ServiceCallError } from '../../clients/memberCaller';
import { linkAddress } from './linkAddress';
import { ConfirmSignInPage } from './view';

const TOKEN = 'tok_abcdefghijklmnopqrstuvwxyz';
const answering = (answer: () => unknown) =>
  (() => Promise.resolve().then(answer)) as unknown as ConsoleClients['sessions'];
const refusing = (code: status) =>
  answering(() => {
    throw new ServiceCallError(code, 'x', 'refused', undefined);
  });

describe('the sign-in link page', () => {
  it('names the address the link signs in', async () => {
    const link = await linkAddress(
      answering(() => ({ email: 'ana@brand.test' })),
      TOKEN,
    );
    expect(link).toEqual({ kind: 'email', email: 'ana@brand.test' });
    const page = html(<ConfirmSignInPage token={TOKEN} email="ana@brand.test" />);
    expect(page).toContain('Sign in as ana@brand.test</button>');
    expect(page).toContain(`action="/sign-in/${TOKEN}"`);
  });

  it('calls a spent or unknown link invalid', async () => {
    expect(await linkAddress(refusing(status.UNAUTHENTICATED), TOKEN)).toEqual({
      kind: 'invalid',
    });
  });

  // A rolling upgrade that rolls the console before records: the old records has no
  // DescribeSignInLink and answered UNIMPLEMENTED, which the page turned into a 500, so
  // nobody could sign in by link until records was rolled too.
  it('still offers the button, without the address, when records predates the description', async () => {
    const link = await linkAddress(refusing(status.UNIMPLEMENTED), TOKEN);
    expect(link).toEqual({ kind: 'unknown' });
    const page = html(<ConfirmSignInPage token={TOKEN} />);
    expect(page).toContain('<button type="submit">Sign in</button>');
    expect(page).toContain('Press it only if you asked for this link yourself');
    expect(page).not.toContain('undefined');
  });

  it('lets any other failure through, to the error page', async () => {
    await expect(linkAddress(refusing(status.UNAVAILABLE), TOKEN)).rejects.toThrow('refused');
  });
});
