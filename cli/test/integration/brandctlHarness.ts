import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import {
  REPO_ROOT,
  startStack,
  TEST_ADMIN_TOKEN,
  type Stack,
  type StackOptions,
} from '@brand/testkit';

/** The built CLI, run exactly as `npx brandctl` runs it (through the bin shim). */
const BRANDCTL_BIN = path.join(REPO_ROOT, 'cli/bin/brandctl.js');

export interface BrandctlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs brandctl in a child process with RECORDS_GRPC_ADDR / ADMIN_TOKEN taken from
 * `env` only (never inherited from the developer's shell). Resolves whatever the exit code.
 */
export function brandctl(args: string[], env: Record<string, string>): Promise<BrandctlRun> {
  const base = { ...process.env };
  delete base.RECORDS_GRPC_ADDR;
  delete base.PLANS_GRPC_ADDR;
  delete base.ADMIN_TOKEN;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BRANDCTL_BIN, ...args],
      { cwd: REPO_ROOT, env: { ...base, ...env }, timeout: 30_000 },
      (err, stdout, stderr) => {
        if (err === null) return resolve({ code: 0, stdout, stderr });
        if (typeof err.code === 'number') return resolve({ code: err.code, stdout, stderr });
        reject(new Error(`could not run brandctl: ${err.message}`));
      },
    );
  });
}

/** Parses stdout as exactly one JSON document (fails the test if anything else is there). */
export function jsonOf<T>(run: BrandctlRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON:\n${run.stdout}\nstderr:\n${run.stderr}`);
  }
}

/** A loopback address where nothing listens: a port the OS handed out and took back. */
export async function closedAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

/** JSON shapes brandctl prints, as far as the tests read them. */
export interface BrandOut {
  id: string;
  name: string;
  tier: string;
  verified: boolean;
  sign_in_policy: string;
}
export interface KeyOut {
  id: string;
  prefix: string;
  environment: string;
  permissions: string[];
  created_by: string;
  revoked_at: string | null;
}
export interface ErrorOut {
  error: { code: string; message: string };
}
export interface SeedOut {
  brand: BrandOut;
  seeded: Record<string, number> | null;
  key: { id: string; secret: string; prefix: string } | null;
}

/** A live-key secret as printed: bk_live_ and 40 base62 characters. */
export const LIVE_SECRET = /bk_live_[A-Za-z0-9]{40}\b/;

export interface BrandctlHarness {
  /** The stack of this test file (set in beforeAll). */
  readonly stack: Stack;
  /** RECORDS_GRPC_ADDR, PLANS_GRPC_ADDR (with plans) and ADMIN_TOKEN pointing at that stack. */
  readonly env: Record<string, string>;
  /** Runs brandctl against the stack; fails the test if the token shows up in its output. */
  run(...args: string[]): Promise<BrandctlRun>;
  /**
   * Runs a command that must be refused, with --json appended: exit 1, `error: <message>`
   * on stderr and `{"error":{code,message}}` on stdout. Returns the error.
   */
  refused(...args: string[]): Promise<ErrorOut['error']>;
}

/**
 * Starts a stack without gateways (records, plus whatever `opts` adds, e.g. `plans: true`)
 * for the calling test file (beforeAll) and stops it (afterAll).
 */
export function useBrandctlStack(opts: StackOptions = {}): BrandctlHarness {
  let started: Stack | undefined;
  beforeAll(async () => {
    started = await startStack({ gateways: 0, ...opts });
  });
  afterAll(() => started?.close());

  const harness: BrandctlHarness = {
    get stack() {
      if (!started) throw new Error('the stack is not started yet (use it inside a test)');
      return started;
    },
    get env() {
      const plans = harness.stack.plans;
      return {
        RECORDS_GRPC_ADDR: harness.stack.records.address,
        ...(plans ? { PLANS_GRPC_ADDR: plans.address } : {}),
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      };
    },
    async run(...args) {
      const result = await brandctl(args, harness.env);
      expect(result.stdout + result.stderr).not.toContain(TEST_ADMIN_TOKEN);
      return result;
    },
    async refused(...args) {
      const r = await harness.run(...args, '--json');
      expect(r.code).toBe(1);
      const { error } = jsonOf<ErrorOut>(r);
      expect(r.stderr).toBe(`error: ${error.message}\n`);
      return error;
    },
  };
  return harness;
}
