// A throwaway CA and a localhost certificate signed by it, made by the script `npm run up` and
// the tests use (scripts/lib/testCa.sh), for the benchmark's HTTPS receivers.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Writes ca.pem, localhost.pem and localhost-key.pem into `dir`; answers their paths. */
export function makeTestCa(dir) {
  const r = spawnSync('bash', [path.join(REPO_ROOT, 'scripts/lib/testCa.sh'), dir], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (r.status !== 0) throw new Error(`testCa.sh failed: ${r.stderr}`);
  return {
    caFile: path.join(dir, 'ca.pem'),
    keyFile: path.join(dir, 'localhost-key.pem'),
    certFile: path.join(dir, 'localhost.pem'),
  };
}
