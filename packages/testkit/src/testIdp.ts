import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './paths';
import { spawnService, type ServiceProcess } from './serviceProcess';

const DEV_IDP = path.join(REPO_ROOT, 'scripts/dev-idp/devIdp.mjs');

/** A person at the test identity provider. */
export interface IdpUser {
  email: string;
  password: string;
  /** Defaults to true; false makes the provider say the address is unverified. */
  email_verified?: boolean;
  /** The subject; defaults to the email. */
  sub?: string;
  /** The groups claim of the ID token (just-in-time membership reads it); absent: none. */
  groups?: string[];
}

/** A client registered at the provider (one per brand connection). */
export interface IdpClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  /** Where the provider POSTs logout tokens (OpenID Connect Back-Channel Logout). */
  backchannel_logout_uri?: string;
}

/** A running identity provider and its users, which a test may change while it runs. */
export interface TestIdp {
  /** "http://127.0.0.1:<port>": a loopback issuer, which records accepts over http. */
  issuer: string;
  process: ServiceProcess;
  addUser(user: IdpUser): void;
  /** The account is gone: the provider no longer signs it in or answers for it. */
  removeUser(email: string): void;
  /**
   * The provider signs the person out everywhere: a logout_token to every client with a
   * backchannel_logout_uri. Answers the clients it reached and those that refused.
   */
  backchannelLogout(who: { email?: string; sub?: string }): Promise<{
    sent: string[];
    failed: { client_id: string; error: string }[];
  }>;
  /** How many requests the provider has answered on `path` (its log of requests). */
  requests(path: string): number;
  close(): Promise<void>;
}

/**
 * Starts a real OpenID provider (oidc-provider, scripts/dev-idp/devIdp.mjs, the one `npm run
 * up` runs) as a child process on 127.0.0.1 with these clients and users. Never a mock: the
 * ID tokens are signed, the code is exchanged with PKCE, the login form is the provider's.
 */
export async function startTestIdp(opts: {
  clients: IdpClient[];
  users?: IdpUser[];
}): Promise<TestIdp> {
  const dir = mkdtempSync(path.join(tmpdir(), 'test-idp-'));
  const usersFile = path.join(dir, 'users.json');
  const configFile = path.join(dir, 'config.json');
  let users = [...(opts.users ?? [])];
  const save = () => writeFileSync(usersFile, JSON.stringify({ users }));
  save();
  writeFileSync(
    configFile,
    JSON.stringify({ port: 0, clients: opts.clients, usersFile, logRequests: true }),
  );
  const proc = await spawnService({
    name: 'idp',
    entry: DEV_IDP,
    env: { DEV_IDP_CONFIG: configFile },
  });
  return {
    issuer: String(proc.listening.issuer),
    process: proc,
    addUser(user) {
      users = [...users.filter((u) => u.email !== user.email), user];
      save();
    },
    removeUser(email) {
      users = users.filter((u) => u.email !== email);
      save();
    },
    async backchannelLogout(who) {
      const res = await fetch(`${String(proc.listening.issuer)}/dev/backchannel-logout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(who),
      });
      if (!res.ok) throw new Error(`the provider answered ${res.status}`);
      return (await res.json()) as {
        sent: string[];
        failed: { client_id: string; error: string }[];
      };
    },
    requests: (path) =>
      proc
        .logs()
        .filter((line) => line.includes('"msg":"request"'))
        .filter((line) => (JSON.parse(line) as { path?: string }).path === path).length,
    async close() {
      await proc.stop('SIGTERM', 5_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
