import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Backend } from '../client';
import { UsageError } from '../usageError';
import { ensureDemoKey } from './demoKey';
import { openDemoKeyFile } from './demoKeyFile';

/** As `seed --key-file` does: the file opened (checked) first, then the key ensured. */
async function seedKey(backend: Backend, path: string) {
  const keyFile = openDemoKeyFile(path);
  try {
    return await ensureDemoKey(backend, { ...OPTS, keyFile });
  } finally {
    keyFile.discard();
  }
}

/** A records service that knows no keys and mints key_new on createKey. */
function fakeBackend() {
  const access = jest.fn((method: string) => {
    if (method === 'listKeys') return Promise.resolve({ keys: [] });
    if (method === 'createKey')
      return Promise.resolve({
        key: { id: 'key_new', prefix: 'pk_live_new' },
        secret: 'pk_live_new_secret',
      });
    return Promise.resolve({});
  });
  return { backend: { access } as unknown as Backend, access };
}

const OPTS: { brandId: string; actor: string; permissions: string[] } = {
  brandId: 'br_1',
  actor: 'a@b.test',
  permissions: ['campaigns:prepare'],
};

describe('ensureDemoKey --key-file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'brandctl-keyfile-'));

  it('refuses a directory before creating a key', async () => {
    const { backend, access } = fakeBackend();
    await expect(seedKey(backend, dir)).rejects.toThrow(/is a directory/);
    expect(access).not.toHaveBeenCalledWith('createKey', expect.anything());
  });

  it('refuses an existing file that is not a demo key file, and leaves it alone', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'my notes\n');
    const { backend, access } = fakeBackend();
    const err = await seedKey(backend, file).catch((e: Error) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/not a demo key file/);
    expect(readFileSync(file, 'utf8')).toBe('my notes\n');
    expect(access).not.toHaveBeenCalledWith('createKey', expect.anything());
  });

  it('rewrites an earlier demo key file with mode 600, leaving no temporary file', async () => {
    const sub = mkdtempSync(join(dir, 'again-'));
    const file = join(sub, 'demo-key.env');
    writeFileSync(file, 'DEMO_KEY_ID=key_old\nDEMO_KEY_SECRET=pk_live_old_x\n');
    chmodSync(file, 0o644);
    const { backend } = fakeBackend();
    const key = await seedKey(backend, file);
    expect(key.id).toBe('key_new');
    expect(readFileSync(file, 'utf8')).toContain('DEMO_KEY_SECRET=pk_live_new_secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(sub)).toEqual(['demo-key.env']);
  });

  it('writes a new file with mode 600', async () => {
    const file = join(dir, 'nested', 'demo-key.env');
    const { backend } = fakeBackend();
    await seedKey(backend, file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
