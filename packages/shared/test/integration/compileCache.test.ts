// A process started again reads the compiled code of its modules from the code cache, and never
// runs code other than its sources': a changed source runs as changed, a damaged cache file is
// read as none, and the module forms Node loads itself (ES modules through require(), a source
// Node detects as ESM, a dynamic import()) load exactly as they do without the cache. Built
// code (packages/shared/dist), real node processes, on Node 20 the hook (codeCacheHook.ts).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@brand/testkit';

const HOOK = path.join(REPO_ROOT, 'packages/shared/dist/compileCache/index.js');

let app: string;
let cacheDir: string;

beforeEach(() => {
  app = mkdtempSync(path.join(tmpdir(), 'compile-cache-app-'));
  cacheDir = mkdtempSync(path.join(tmpdir(), 'compile-cache-dir-'));
  const files: Record<string, string> = {
    'package.json': '{}',
    'main.js': `require(${JSON.stringify(HOOK)});
const plain = require('./plain.js');
const typed = require('./typedByComment.js');
const esm = require('./esm.mjs');
const detected = require('./detected.js');
require('./dynamic.js').load().then((dynamic) => {
  console.log(JSON.stringify({ plain: plain.value(), typed, esm: esm.value, detected: detected.value, dynamic }));
});`,
    'plain.js': `module.exports = { value: () => 'plain ' + require('node:path').basename(__filename) };`,
    'typedByComment.js': `/** @type {import('./plain.js')} */\nmodule.exports = 'typed';`,
    'esm.mjs': `export const value = 'esm';`,
    'detected.js': `export const value = 'detected';`,
    'dynamic.js': `exports.load = async () => (await import('./esm.mjs')).value + ' by import()';`,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(app, name), text);
});

afterEach(() => {
  rmSync(app, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

function run(env: Record<string, string> = {}): Record<string, string> {
  const out = execFileSync(process.execPath, [path.join(app, 'main.js')], {
    env: { PATH: process.env.PATH ?? '', COMPILE_CACHE_DIR: cacheDir, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out) as Record<string, string>;
}

const EXPECTED = {
  plain: 'plain plain.js',
  typed: 'typed',
  esm: 'esm',
  detected: 'detected',
  dynamic: 'esm by import()',
};

function cacheFiles(): string[] {
  return readdirSync(cacheDir).map((name) => path.join(cacheDir, name));
}

it('runs the same with the cache as without it, and a second start writes nothing new', () => {
  expect(run({ COMPILE_CACHE: 'off' })).toEqual(EXPECTED);
  expect(cacheFiles()).toEqual([]);

  expect(run()).toEqual(EXPECTED);
  const [file] = cacheFiles();
  expect(file).toMatch(/main-[0-9a-f]{16}\.v8cache$/);
  const written = readFileSync(file!);
  const writtenAs = statSync(file!).ino;

  // every module's data was accepted: nothing fresh to write on exit (a write is a new file
  // renamed into place: another inode)
  expect(run()).toEqual(EXPECTED);
  expect(statSync(file!).ino).toBe(writtenAs);
  expect(readFileSync(file!).equals(written)).toBe(true);
});

it('runs a changed source as changed, and keeps its new code for the next start', () => {
  run();
  const [file] = cacheFiles();
  const before = readFileSync(file!);
  // the same length: V8's own check of a cache entry against its source compares lengths
  const source = path.join(app, 'plain.js');
  const original = readFileSync(source, 'utf8');
  const changed = `module.exports = { value: () => 'changed' };`;
  writeFileSync(source, changed.padEnd(original.length, ' '));
  expect(readFileSync(source, 'utf8')).toHaveLength(original.length);
  expect(run().plain).toBe('changed');
  expect(readFileSync(file!).equals(before)).toBe(false);
  expect(run().plain).toBe('changed');
});

it('reads a damaged or foreign cache file as none, and writes a good one', () => {
  run();
  const [file] = cacheFiles();
  const good = readFileSync(file!);
  const dataStart = 4 + good.readUInt32LE(0);
  for (const damage of [
    Buffer.from('not a cache file at all'),
    Buffer.alloc(0),
    // cut inside the index
    good.subarray(0, 40),
    // a sound index over data that is not V8's: V8 refuses it, the sources are compiled
    Buffer.concat([good.subarray(0, dataStart), Buffer.alloc(good.length - dataStart, 7)]),
  ]) {
    writeFileSync(file!, damage);
    expect(run()).toEqual(EXPECTED);
    const rewritten = statSync(file!).ino;
    expect(run()).toEqual(EXPECTED);
    expect(statSync(file!).ino).toBe(rewritten);
  }
});

it('keeps no cache in a folder that others may write (one planted under a shared /tmp)', () => {
  chmodSync(cacheDir, 0o777);
  expect(run()).toEqual(EXPECTED);
  expect(cacheFiles()).toEqual([]);
  chmodSync(cacheDir, 0o700);
  expect(run()).toEqual(EXPECTED);
  expect(cacheFiles()).toHaveLength(1);
});

it('keeps no cache through a link, even to a folder of this user alone', () => {
  const real = path.join(cacheDir, 'real');
  mkdirSync(real, { mode: 0o700 });
  const link = path.join(cacheDir, 'link');
  symlinkSync(real, link);
  expect(run({ COMPILE_CACHE_DIR: link })).toEqual(EXPECTED);
  expect(readdirSync(real)).toEqual([]);
  // the folder itself would do: it is the link that is refused
  expect(run({ COMPILE_CACHE_DIR: real })).toEqual(EXPECTED);
  expect(readdirSync(real)).toHaveLength(1);
});

it('makes its own folder for this user alone', () => {
  const made = path.join(cacheDir, 'made');
  expect(run({ COMPILE_CACHE_DIR: made })).toEqual(EXPECTED);
  expect(statSync(made).mode & 0o777).toBe(0o700);
  expect(readdirSync(made)).toHaveLength(1);
});

it('keeps the folder under 64 MB, dropping the files least recently used first', () => {
  // other checkouts' files: 40 MB each (sparse), two old and one read a moment ago
  const mib = 1024 * 1024;
  const other = (name: string, ageSeconds: number): string => {
    const file = path.join(cacheDir, name);
    writeFileSync(file, '');
    truncateSync(file, 40 * mib);
    const at = new Date(Date.now() - ageSeconds * 1000);
    utimesSync(file, at, at);
    return file;
  };
  const oldest = other('gateway-0000000000000001.v8cache', 3_600);
  const older = other('records-0000000000000002.v8cache', 600);
  const recent = other('webhooks-0000000000000003.v8cache', 1);
  expect(run()).toEqual(EXPECTED);
  const left = cacheFiles();
  expect(left).not.toContain(oldest);
  expect(left).not.toContain(older);
  expect(left).toContain(recent);
  expect(left.filter((f) => /main-[0-9a-f]{16}\.v8cache$/.test(f))).toHaveLength(1);
  expect(left.reduce((sum, f) => sum + statSync(f).size, 0)).toBeLessThanOrEqual(64 * mib);
});

it('starts when the cache folder cannot be written, and writes nothing', () => {
  const blocked = path.join(cacheDir, 'a-file-not-a-folder');
  writeFileSync(blocked, '');
  expect(run({ COMPILE_CACHE_DIR: path.join(blocked, 'cache') })).toEqual(EXPECTED);
  expect(cacheFiles()).toEqual([blocked]);
});
