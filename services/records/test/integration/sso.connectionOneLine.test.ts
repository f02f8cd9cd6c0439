// A brand's single sign-on connection takes its client id by the rules of every name
// (@brand/shared/text): the single sign-on page shows it. Before, its own pattern refused only
// control characters ("The client id is one line."), and an id with a right-to-left override was
// saved and shown reversed. The client secret is never shown: text-direction controls stay
// allowed in it, line breaks and control characters do not.
import {
  createConsoleClient,
  randomHex,
  startHostileIssuer,
  startStack,
  TEST_ADMIN_TOKEN,
  type ConsoleClient,
  type HostileIssuer,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
/** The stack's records as operators call it, with the admin token. */
let admin: ConsoleClient;
let issuer: HostileIssuer;

beforeAll(async () => {
  // the issuer below is on this machine: the local-only setting admits it
  stack = await startStack({
    gateways: 0,
    recordsEnv: { WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true' },
  });
  admin = createConsoleClient(stack.records.address, TEST_ADMIN_TOKEN);
  issuer = await startHostileIssuer();
  issuer.serve({ document: issuer.benignDocument() });
}, 120_000);
afterAll(async () => {
  admin?.close();
  await issuer?.close();
  await stack?.close();
});

async function newBrand(): Promise<string> {
  const made = await stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner@one-line-${randomHex(4)}.test`,
  });
  return made.brand.id;
}

const connect = (brandId: string, client: { id: string; secret: string }) =>
  admin.sso('setSsoConnection', {
    brand_id: brandId,
    issuer: issuer.origin,
    client_id: client.id,
    client_secret: client.secret,
    allowed_domains: [`${brandId.slice(3).toLowerCase()}.example.com`],
    enabled: true,
    session_token: '',
    if_updated_at: '',
  });

/** How a call was refused (code and sentence), or undefined when it was answered. */
const refusalOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (err: { code?: string; message?: string }) => ({ code: err.code, message: err.message }),
  );

describe('a connection’s client id', () => {
  it('is refused with a text-direction control or a control character, saying which', async () => {
    const brandId = await newBrand();
    expect(
      await refusalOf(connect(brandId, { id: 'console-\u202eRTL', secret: 's3cret' })),
    ).toEqual({
      code: 'validation_failed',
      message: 'The client id must not contain text-direction controls.',
    });
    expect(await refusalOf(connect(brandId, { id: 'console\u001b[2J', secret: 's3cret' }))).toEqual(
      {
        code: 'validation_failed',
        message: 'The client id must be one line, without control characters.',
      },
    );
    const { connection } = await admin.sso('getSsoConnection', {
      brand_id: brandId,
      session_token: '',
    });
    expect(connection).toBeUndefined();
  });

  it('keeps right-to-left script and its marks', async () => {
    const brandId = await newBrand();
    await connect(brandId, { id: `לקוח\u200f-${brandId}`, secret: 's3cret' });
    const { connection } = await admin.sso('getSsoConnection', {
      brand_id: brandId,
      session_token: '',
    });
    expect(connection?.client_id).toBe(`לקוח\u200f-${brandId}`);
  });
});

describe('a connection’s client secret', () => {
  it('is refused with a line break, in its own words', async () => {
    const brandId = await newBrand();
    expect(
      await refusalOf(connect(brandId, { id: `console-${brandId}`, secret: 's3cret\nmore' })),
    ).toEqual({
      code: 'validation_failed',
      message: 'The client secret must be one line, without control characters.',
    });
  });

  it('may hold text-direction controls: nobody reads it', async () => {
    const brandId = await newBrand();
    await expect(
      connect(brandId, { id: `console-${brandId}`, secret: 's3cr\u202et\u2066' }),
    ).resolves.toBeDefined();
  });
});
