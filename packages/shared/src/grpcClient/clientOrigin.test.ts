import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { Metadata } from '@grpc/grpc-js';
import {
  currentClientOrigin,
  originOfMetadata,
  peerAddress,
  setOriginMetadata,
  withCallOrigin,
  withClientOrigin,
} from './clientOrigin';

/**
 * withCallOrigin in a process of its own, on the module as TypeScript compiles it: whether
 * promise hooks are on is read from a promise continuation's async id (0 when they are off;
 * the hooks are what an AsyncLocalStorage costs every promise).
 */
const PROBE = `
const { executionAsyncId } = require('node:async_hooks');
const { withCallOrigin, currentClientOrigin } = require('./clientOrigin.js');
const hooksOn = async () => { await null; return executionAsyncId() !== 0; };
const seen = async () => ({ hooks: await hooksOn(), address: currentClientOrigin().clientAddress });
const empty = { clientAddress: '', userAgent: '' };
(async () => {
  const out = { before: await hooksOn() };
  out.inside = await withCallOrigin({ clientAddress: '198.51.100.3', userAgent: 'C' }, seen);
  out.after = await hooksOn();
  out.bare = await withCallOrigin(empty, seen);
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const withOrigin = withCallOrigin({ clientAddress: '198.51.100.4', userAgent: 'D' }, async () => {
    await gate;
    return currentClientOrigin().clientAddress;
  });
  const without = await withCallOrigin(empty, async () => currentClientOrigin().clientAddress);
  release();
  out.beside = { without, withOrigin: await withOrigin };
  out.afterBoth = await hooksOn();
  out.failure = await withCallOrigin({ clientAddress: '198.51.100.5', userAgent: 'E' }, async () => {
    await null;
    throw new Error('refused');
  }).catch((err) => err.message);
  out.afterFailure = await hooksOn();
  process.stdout.write(JSON.stringify(out));
})();
`;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const EMPTY = { clientAddress: '', userAgent: '' };

describe('the client origin of a call', () => {
  it('travels from the console’s request to the service’s call, bounded', async () => {
    const md = new Metadata();
    await withClientOrigin(
      { clientAddress: '203.0.113.7', userAgent: `Probe\u0007/1.0 ${'x'.repeat(600)}` },
      async () => {
        await Promise.resolve();
        setOriginMetadata(md);
      },
    );
    const origin = originOfMetadata(md);
    expect(origin.clientAddress).toBe('203.0.113.7');
    expect(origin.userAgent.startsWith('Probe/1.0 x')).toBe(true);
    expect(origin.userAgent).toHaveLength(512);
    expect(currentClientOrigin()).toEqual({ clientAddress: '', userAgent: '' });
  });

  it('keeps each call’s origin through its awaits, calls side by side', async () => {
    const seen = async (ms: number) => {
      await pause(ms);
      await Promise.resolve();
      return currentClientOrigin().clientAddress;
    };
    const [a, b] = await Promise.all([
      withCallOrigin({ clientAddress: '198.51.100.1', userAgent: 'A' }, () => seen(20)),
      withCallOrigin({ clientAddress: '198.51.100.2', userAgent: 'B' }, () => seen(5)),
    ]);
    expect([a, b]).toEqual(['198.51.100.1', '198.51.100.2']);
    expect(currentClientOrigin()).toEqual(EMPTY);
  });

  it('switches the async hooks off when no call with an origin runs, in a plain Node process', () => {
    // jest turns promise hooks on for its own purposes: the probe needs a process of its own
    const dir = mkdtempSync(path.join(tmpdir(), 'client-origin-'));
    try {
      const source = readFileSync(path.join(__dirname, 'clientOrigin.ts'), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
      });
      writeFileSync(path.join(dir, 'clientOrigin.js'), outputText);
      writeFileSync(path.join(dir, 'probe.js'), PROBE);
      const out = execFileSync(process.execPath, [path.join(dir, 'probe.js')], {
        encoding: 'utf8',
      });
      expect(JSON.parse(out)).toEqual({
        before: false,
        inside: { hooks: true, address: '198.51.100.3' },
        after: false,
        bare: { hooks: false, address: '' },
        beside: { without: '', withOrigin: '198.51.100.4' },
        afterBoth: false,
        failure: 'refused',
        afterFailure: false,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the address of a grpc-js peer', () => {
    expect(peerAddress('ipv4:10.0.0.7:52344')).toBe('10.0.0.7');
    expect(peerAddress('ipv6:[::1]:52344')).toBe('::1');
    expect(peerAddress('127.0.0.1:9')).toBe('127.0.0.1');
    expect(peerAddress('unix:/tmp/sock')).toBe('');
  });
});
