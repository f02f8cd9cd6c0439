// Runs the built brandctl against a test's webhooks service, as an operator would.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT, TEST_ADMIN_TOKEN } from '@brand/testkit';
import type { Harness } from '../../../services/webhooks/test/integration/harness';

const BIN = path.join(REPO_ROOT, 'cli/bin/brandctl.js');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `brandctl ...args` with the admin token against `h`'s webhooks service. */
export function brandctl(h: Harness, ...args: string[]): Promise<Run> {
  return brandctlAt({ webhooks: h.webhooks.address }, ...args);
}

/**
 * Runs `brandctl ...args` with the admin token against these services: the webhooks service,
 * and a records service where a command asks one (`receiver add` checks its actor there).
 */
export function brandctlAt(
  addresses: { webhooks: string; records?: string },
  ...args: string[]
): Promise<Run> {
  const env = {
    ...process.env,
    WEBHOOKS_GRPC_ADDR: addresses.webhooks,
    ...(addresses.records === undefined ? {} : { RECORDS_GRPC_ADDR: addresses.records }),
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
  };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: REPO_ROOT, env, timeout: 30_000 },
      (err, stdout, stderr) => {
        if (err === null) return resolve({ code: 0, stdout, stderr });
        if (typeof err.code === 'number') return resolve({ code: err.code, stdout, stderr });
        reject(new Error(`could not run brandctl: ${err.message}`));
      },
    );
  });
}

/** A run's stdout as the JSON document --json prints. */
export const json = <T>(r: Run): T => JSON.parse(r.stdout) as T;
