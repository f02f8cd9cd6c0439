import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineLiveFileProperty, liveSecretFile } from './secretFiles';

const dir = mkdtempSync(path.join(tmpdir(), 'live-secret-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('liveSecretFile', () => {
  it('reads the file again once it changed, without its trailing newline', () => {
    const file = path.join(dir, 'password');
    writeFileSync(file, 'first\n');
    const read = liveSecretFile(file);
    expect(read()).toBe('first');
    writeFileSync(file, 'second, longer\n');
    expect(read()).toBe('second, longer');
  });

  it('follows a mounted Secret’s swap of its data link, as kubelet rotates it', () => {
    // kubelet's layout: key -> ..data/key, ..data -> ..<timestamp>; a rotation swaps ..data
    const mount = path.join(dir, 'mount');
    mkdirSync(path.join(mount, '..v1'), { recursive: true });
    writeFileSync(path.join(mount, '..v1', 'KAFKA_SASL_PASSWORD'), 'old-password');
    symlinkSync('..v1', path.join(mount, '..data'));
    symlinkSync('..data/KAFKA_SASL_PASSWORD', path.join(mount, 'KAFKA_SASL_PASSWORD'));
    const read = liveSecretFile(path.join(mount, 'KAFKA_SASL_PASSWORD'));
    expect(read()).toBe('old-password');

    mkdirSync(path.join(mount, '..v2'));
    writeFileSync(path.join(mount, '..v2', 'KAFKA_SASL_PASSWORD'), 'new-password');
    symlinkSync('..v2', path.join(mount, '..data_tmp'));
    renameSync(path.join(mount, '..data_tmp'), path.join(mount, '..data'));
    expect(read()).toBe('new-password');
  });

  it('keeps the last text while the file is missing mid-swap, and throws if it never had one', () => {
    const file = path.join(dir, 'ca.pem');
    writeFileSync(file, 'CA ONE');
    const read = liveSecretFile(file);
    expect(read()).toBe('CA ONE');
    rmSync(file);
    expect(read()).toBe('CA ONE');
    expect(() => liveSecretFile(path.join(dir, 'never'))()).toThrow(/ENOENT/);
  });
});

describe('defineLiveFileProperty', () => {
  it('gives the current text to a spread, as kafkajs and ioredis copy their TLS options', () => {
    const file = path.join(dir, 'key.pem');
    writeFileSync(file, 'KEY ONE');
    const tls: Record<string, unknown> = { rejectUnauthorized: true };
    defineLiveFileProperty(tls, 'key', file);
    expect({ ...tls }).toEqual({ rejectUnauthorized: true, key: 'KEY ONE' });
    writeFileSync(file, 'KEY TWO, rotated');
    expect(Object.assign({}, tls)).toEqual({ rejectUnauthorized: true, key: 'KEY TWO, rotated' });
  });
});
