import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './paths';
import { spawnService, type ServiceProcess } from './serviceProcess';

const DEV_DNS = path.join(REPO_ROOT, 'scripts/dev-dns/devDns.mjs');

/** A running DNS server whose TXT records a test changes while it runs. */
export interface TestDns {
  /** "127.0.0.1:<port>", for SSO_DNS_SERVERS. */
  server: string;
  process: ServiceProcess;
  /** Publishes (replaces) the TXT values of a name. */
  publishTxt(name: string, values: string[]): void;
  /** Holds the answers for `name` back `ms` (0: at once), as a slow resolver would. */
  delayAnswers(name: string, ms: number): void;
  /** The name no longer exists. */
  removeTxt(name: string): void;
  /** How many questions for `name` the server has answered (its log of queries). */
  queries(name: string): number;
  close(): Promise<void>;
}

/**
 * Starts a real DNS server (scripts/dev-dns/devDns.mjs, the one `npm run up` runs: UDP on
 * 127.0.0.1, dns-packet's wire format) as a child process, serving the TXT records the test
 * publishes. Records asks it through node:dns's Resolver, as it asks any resolver an operator
 * names, so domain verification is tested end to end, never against a mock.
 */
export async function startTestDns(): Promise<TestDns> {
  const dir = mkdtempSync(path.join(tmpdir(), 'test-dns-'));
  const zoneFile = path.join(dir, 'zone.json');
  const configFile = path.join(dir, 'config.json');
  const txt = new Map<string, string[]>();
  const delayMs = new Map<string, number>();
  const save = () =>
    writeFileSync(
      zoneFile,
      JSON.stringify({ txt: Object.fromEntries(txt), delayMs: Object.fromEntries(delayMs) }),
    );
  save();
  writeFileSync(configFile, JSON.stringify({ port: 0, zoneFile, logQueries: true }));
  const proc = await spawnService({
    name: 'dns',
    entry: DEV_DNS,
    env: { DEV_DNS_CONFIG: configFile },
  });
  return {
    server: `127.0.0.1:${proc.port}`,
    process: proc,
    publishTxt(name, values) {
      txt.set(name.toLowerCase(), values);
      save();
    },
    delayAnswers(name, ms) {
      delayMs.set(name.toLowerCase(), ms);
      save();
    },
    removeTxt(name) {
      txt.delete(name.toLowerCase());
      save();
    },
    queries: (name) =>
      proc
        .logs()
        .filter((line) => line.includes('"msg":"query"'))
        .filter((line) => (JSON.parse(line) as { name?: string }).name === name.toLowerCase())
        .length,
    async close() {
      await proc.stop('SIGTERM', 5_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
