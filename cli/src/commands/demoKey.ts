import { Environment, type ApiKey } from '@brand/proto/access/v1';
import type { Backend } from '../client';
import type { DemoKeyFile } from './demoKeyFile';

export const DEMO_KEY_NAME = 'Demo integration';

export interface DemoKey {
  id: string;
  secret: string;
  prefix: string;
  /** True when the key of an earlier run (kept in the key file) was still live and is reused. */
  reused: boolean;
}

/** The demo key an earlier run kept in the key file (DEMO_KEY_ID=…, DEMO_KEY_SECRET=…), if any. */
function readKept(text: string): { id: string; secret: string } | undefined {
  const value = (name: string) => new RegExp(`^${name}=(.+)$`, 'm').exec(text)?.[1]?.trim();
  const id = value('DEMO_KEY_ID');
  const secret = value('DEMO_KEY_SECRET');
  return id && secret ? { id, secret } : undefined;
}

const isLive = (k: ApiKey, now: number) =>
  !k.revoked_at && !(k.expires_at && Date.parse(k.expires_at) <= now);

/**
 * The brand's one live demo key, so running `npm run up` again does not pile up live keys
 * with campaigns:prepare: the key kept in `keyFile` is reused while it is live (and the file's
 * secret is that key's: its prefix matches); otherwise a new key is minted, every earlier
 * live key named "Demo integration" on the brand is revoked, and the new one is written to
 * `keyFile` (mode 600, replacing the file whole; openDemoKeyFile has checked it before
 * anything was created). Without a key file every run mints a key and revokes the earlier ones.
 */
export async function ensureDemoKey(
  backend: Backend,
  opts: { brandId: string; actor: string; permissions: string[]; keyFile?: DemoKeyFile },
): Promise<DemoKey> {
  const file = opts.keyFile;
  const now = Date.now();
  const { keys } = await backend.access('listKeys', { brand_id: opts.brandId });
  const kept = file ? readKept(file.kept) : undefined;
  const reusable = kept
    ? keys.find(
        (k) =>
          k.id === kept.id &&
          k.name === DEMO_KEY_NAME &&
          isLive(k, now) &&
          kept.secret.startsWith(k.prefix),
      )
    : undefined;
  if (kept && reusable) return { ...kept, prefix: reusable.prefix, reused: true };

  const res = await backend.access('createKey', {
    brand_id: opts.brandId,
    name: DEMO_KEY_NAME,
    environment: Environment.ENVIRONMENT_LIVE,
    actor_email: opts.actor,
    permissions: opts.permissions,
    allowed_networks: [],
  });
  if (!res.key) throw new Error('the records service returned no key');
  for (const earlier of keys.filter((k) => k.name === DEMO_KEY_NAME && isLive(k, now))) {
    await backend.access('revokeKey', { key_id: earlier.id, actor_email: opts.actor });
  }
  file?.write(
    `# The demo key of npm run up (brandctl seed --key-file); never commit.\nDEMO_KEY_ID=${res.key.id}\nDEMO_KEY_SECRET=${res.secret}\n`,
  );
  return { id: res.key.id, secret: res.secret, prefix: res.key.prefix, reused: false };
}
