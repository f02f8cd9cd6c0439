import type { Command } from 'commander';
import { BrandTier, type Brand } from '@brand/proto/access/v1';
import { Resource } from '@brand/proto/records/v1';
import { AppError } from '@brand/shared/errors';
import { MAX_SEED_SCALE, parseScale } from '../args';
import type { Backend } from '../client';
import { formatFields, formatTable, indent, type Rendered } from '../output';
import { defineCommand, runCommand } from '../run';
import { brandFields, brandJson, permissionsText, secretBlock } from '../views';
import { DEMO_KEY_NAME, ensureDemoKey, type DemoKey } from './demoKey';
import { openDemoKeyFile, type DemoKeyFile } from './demoKeyFile';
import { CAMPAIGNS_PREPARE } from './key';

/** The demo brand `npm run up` and the docs refer to; found by exact name. */
const DEMO_BRAND = { name: 'Demo Brand', owner: 'owner@demo-brand.test' } as const;
/** Seeding writes thousands of rows per unit of scale in one transaction: allow for it. */
const SEED_MS_PER_SCALE = 30_000;

interface SeedOptions {
  brand?: string;
  scale: number;
  key: boolean;
  actor: string;
  keyFile?: string;
}

/**
 * brandctl seed: demo data for the local stack, safe to run again. It leaves one live demo
 * key: the one kept in --key-file while it is live, else a new one (earlier ones revoked).
 */
export function registerSeedCommand(program: Command): void {
  defineCommand(program, 'seed', 'Fill the local stack with a demo brand, records and a key.', [
    'brandctl seed',
    'brandctl seed --brand br_123 --actor ana@acme.test --scale 2',
    'brandctl seed --no-key --json',
    'brandctl seed --key-file .local/demo-key.env',
  ])
    .option('--brand <brandId>', `seed this brand instead of "${DEMO_BRAND.name}"`)
    .option(
      '--scale <n>',
      `multiply the volume (~4,000 records), 1..${MAX_SEED_SCALE}`,
      parseScale,
      1,
    )
    .option('--actor <email>', 'the brand owner who creates the demo key', DEMO_BRAND.owner)
    .option('--no-key', 'do not create a demo key')
    .option(
      '--key-file <path>',
      'keep the demo key here (mode 600) and reuse it on the next run while it is live',
    )
    .action((opts: SeedOptions, cmd: Command) =>
      runCommand(cmd, async ({ backend, settings, json, notice }) => {
        // Checked before the brand, the records or a key are created (a bad path refused first).
        const keyFile = opts.key && opts.keyFile ? openDemoKeyFile(opts.keyFile) : undefined;
        try {
          return await seedAll(backend, opts, settings.timeoutMs, json, notice, keyFile);
        } finally {
          keyFile?.discard();
        }
      }),
    );
}

async function seedAll(
  backend: Backend,
  opts: SeedOptions,
  timeoutMs: number,
  json: boolean,
  notice: (text: string) => void,
  keyFile: DemoKeyFile | undefined,
): Promise<Rendered> {
  const brand = await (opts.brand ? findBrand(backend, opts.brand) : demoBrand(backend));
  const seeded = (await hasRecords(backend, brand.id))
    ? null
    : await seedRecords(backend, brand.id, opts.scale, timeoutMs);
  if (seeded === null && json) notice(`${brand.id} already has records; nothing seeded.`);
  const key = opts.key
    ? await ensureDemoKey(backend, {
        brandId: brand.id,
        actor: opts.actor,
        permissions: [CAMPAIGNS_PREPARE],
        keyFile,
      })
    : null;
  return {
    json: { brand: brandJson(brand), seeded, key },
    human: render(brand, seeded, key),
  };
}

async function findBrand(backend: Backend, brandId: string): Promise<Brand> {
  const { brands } = await backend.access('listBrands', {});
  const brand = brands.find((b) => b.id === brandId);
  if (!brand) throw new AppError('not_found', `No brand ${brandId}.`);
  return brand;
}

/** Finds "Demo Brand" or creates it (enterprise, verified), so a second run reuses it. */
async function demoBrand(backend: Backend): Promise<Brand> {
  const { brands } = await backend.access('listBrands', {});
  const existing = brands.find((b) => b.name === DEMO_BRAND.name);
  if (existing) return existing;
  const req = {
    name: DEMO_BRAND.name,
    tier: BrandTier.BRAND_TIER_ENTERPRISE,
    verified: true,
    owner_email: DEMO_BRAND.owner,
  };
  const res = await backend.access('createBrand', req);
  if (!res.brand) throw new Error('the records service returned no brand');
  return res.brand;
}

/** Asks the data-plane RPC for one campaign: any record at all means "already seeded". */
async function hasRecords(backend: Backend, brandId: string): Promise<boolean> {
  const req = {
    brand_id: brandId,
    resource: Resource.RESOURCE_CAMPAIGNS,
    limit: 1,
    with_change_version: false,
  };
  const res = await backend.records('listRecordsPage', req);
  return res.count > 0;
}

async function seedRecords(
  backend: Backend,
  brandId: string,
  scale: number,
  timeoutMs: number,
): Promise<Record<string, number>> {
  const res = await backend.records(
    'seedDemoData',
    { brand_id: brandId, scale },
    { deadlineMs: Math.max(timeoutMs, SEED_MS_PER_SCALE * scale) },
  );
  return res.created;
}

function render(brand: Brand, seeded: Record<string, number> | null, key: DemoKey | null): string {
  const parts = [`Brand\n\n${indent(brandFields(brand))}`];
  if (seeded) {
    const rows = Object.entries(seeded).map(([resource, n]) => [resource, String(n)]);
    const total = Object.values(seeded).reduce((a, b) => a + b, 0);
    parts.push(`Seeded ${total} records\n\n${indent(formatTable(['RESOURCE', 'CREATED'], rows))}`);
  } else {
    parts.push('Records: the brand already has records; nothing seeded.');
  }
  if (key) {
    const fields = formatFields([
      ['id', key.id],
      ['name', DEMO_KEY_NAME],
      ['prefix', key.prefix],
      ['permissions', permissionsText([CAMPAIGNS_PREPARE])],
    ]);
    const title = key.reused ? 'Demo key (live, reused from the key file)' : 'Demo key (live)';
    parts.push(`${title}\n\n${indent(fields)}\n\n${indent(secretBlock(key.secret))}`);
  }
  return parts.join('\n\n');
}
