import { buildProgram } from '../program';

/** A provisioning service that mints one SCIM token. */
const provisioning = jest.fn((method: string) =>
  Promise.resolve(
    method === 'createScimToken' || method === 'rotateScimToken'
      ? { token: { id: 'sct_1', name: 'Okta' }, secret: 'scim_secret_1', replaced: undefined }
      : {},
  ),
);
jest.mock('../client', () => ({
  createBackend: () => ({ provisioning, close: () => undefined }),
}));

/** Runs brandctl with these arguments, collecting what it writes to stdout and stderr. */
async function run(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    await buildProgram().parseAsync(['node', 'brandctl', ...args, '--token', 't0k']);
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return { stdout, stderr };
}

const WARNING = /Copy it now/g;

describe.each([
  ['create', ['provisioning', 'token', 'create', 'br_1', '--name', 'Okta']],
  ['rotate', ['provisioning', 'token', 'rotate', 'sct_1']],
])('provisioning token %s warns once, as key create does', (_, args) => {
  it('prints the secret with the warning once in text', async () => {
    const { stdout } = await run(...args);
    expect(stdout).toContain('scim_secret_1');
    expect(stdout.match(WARNING)).toHaveLength(1);
  });

  it('with --json: only JSON on stdout, the warning on stderr', async () => {
    const { stdout, stderr } = await run(...args, '--json');
    expect(JSON.parse(stdout)).toMatchObject({ secret: 'scim_secret_1' });
    expect(stderr.match(WARNING)).toHaveLength(1);
  });
});
