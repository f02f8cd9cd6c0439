import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './paths';

/** A throwaway CA and a server certificate for localhost, 127.0.0.1 and ::1. */
export interface TestCa {
  dir: string;
  /** PEM file of the CA certificate, for WEBHOOK_EXTRA_CA_FILE. */
  caFile: string;
  /** The server key and certificate, for startReceiver({ tls }). */
  tls: { key: Buffer; cert: Buffer };
  /** Deletes the directory. */
  remove(): void;
}

/**
 * Generates a CA and a localhost certificate with openssl (scripts/lib/testCa.sh, the same
 * script `npm run up` uses for .local/ca/) into a new temp directory. Throws with
 * openssl's output when it fails.
 */
export function createTestCa(): TestCa {
  const dir = mkdtempSync(path.join(tmpdir(), 'brand-test-ca-'));
  const result = spawnSync('bash', [path.join(REPO_ROOT, 'scripts/lib/testCa.sh'), dir], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (result.status !== 0)
    throw new Error(`testCa.sh failed (${String(result.status)}): ${result.stderr}`);
  return {
    dir,
    caFile: path.join(dir, 'ca.pem'),
    tls: {
      key: readFileSync(path.join(dir, 'localhost-key.pem')),
      cert: readFileSync(path.join(dir, 'localhost.pem')),
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
