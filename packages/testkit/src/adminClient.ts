import {
  AccessServiceClient,
  type ApiKey,
  type AuthenticateKeyResponse,
  type Brand,
  type BrandTier,
  type Environment,
  type Member,
  type Role,
} from '@brand/proto/access/v1';
import { UsageServiceClient } from '@brand/proto/access/v1/usage';
import {
  RecordsServiceClient,
  type ListRecordsPageResponse,
  type Resource,
} from '@brand/proto/records/v1';
import { connectClient, createCaller, type Caller } from '@brand/shared/grpc';
import type { ResourceName } from '@brand/shared/resources';
import {
  environmentValue,
  resourceValue,
  roleValue,
  tierValue,
  type EnvironmentName,
  type RoleName,
  type TierName,
} from './protoEnums';
import { pageRecords } from './pageRecords';
import { randomHex } from './random';
import { TEST_ADMIN_TOKEN } from './services';

const DEADLINE_MS = 5_000;
/** Seeding writes thousands of rows in one transaction; it gets more than a lookup. */
const SEED_DEADLINE_MS = 60_000;

/** A page of ListRecordsPage with its records read back (pageRecords). */
export interface PageOfRecords {
  records: Array<Record<string, unknown>>;
  next_cursor: string | undefined;
}

export interface ListRecordsInput {
  brand_id: string;
  resource: ResourceName | Resource;
  limit?: number;
  cursor?: string;
  since?: string;
  /** The one record of this id instead of a page (GET /api/v1/{resource}/{id}). */
  id?: string;
  /** Also return the change version (read before the page). */
  with_change_version?: boolean;
}

/**
 * The records process as brandctl and the gateway call it, with test defaults. Failures
 * reject with the AppError the shared caller makes of them, so tests assert `.code`
 * (e.g. `rejects.toMatchObject({ code: 'invalid_key' })`).
 */
export interface AdminClient {
  /** Typed callers for calls the helpers below do not cover. */
  access: Caller<AccessServiceClient>;
  /** UsageService (usage and the request log) with the same token. */
  usage: Caller<UsageServiceClient>;
  records: Caller<RecordsServiceClient>;
  createBrand(opts?: {
    name?: string;
    tier?: TierName | BrandTier;
    verified?: boolean;
    ownerEmail?: string;
  }): Promise<{ brand: Brand; owner: Member }>;
  listBrands(): Promise<Brand[]>;
  updateBrand(opts: {
    brandId: string;
    tier?: TierName | BrandTier;
    verified?: boolean;
    signInPolicy?: string;
  }): Promise<Brand>;
  addMember(opts: { brandId: string; email: string; role: RoleName | Role }): Promise<Member>;
  createKey(opts: {
    brandId: string;
    actorEmail: string;
    name?: string;
    environment?: EnvironmentName | Environment;
    permissions?: string[];
    /** Allowed networks (issue 63); none by default (any network). */
    allowedNetworks?: string[];
  }): Promise<{ key: ApiKey; secret: string }>;
  listKeys(brandId: string): Promise<ApiKey[]>;
  revokeKey(keyId: string, actorEmail?: string): Promise<ApiKey>;
  seedDemoData(brandId: string, scale?: number): Promise<Record<string, number>>;
  listRecordsPage(req: ListRecordsInput): Promise<ListRecordsPageResponse>;
  /** ListRecordsPage, its records read back as the proto messages hold them (pageRecords). */
  listPageRecords(req: ListRecordsInput): Promise<PageOfRecords>;
  /** As a gateway asks; `enforcesNetworks` false stands for a gateway before key networks. */
  authenticateKey(
    keyHashHex: string,
    environment: EnvironmentName | Environment,
    opts?: { enforcesNetworks?: boolean },
  ): Promise<AuthenticateKeyResponse>;
  close(): void;
}

const present = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`response without ${what}`);
  return value;
};

/**
 * Connects to a records process presenting `token` (the admin token by default) on every
 * call. Pass '' to send none, the internal token to act as the gateway, or any other string
 * to send a wrong one.
 */
export function createAdminClient(recordsAddr: string, token = TEST_ADMIN_TOKEN): AdminClient {
  const recordsClient = connectClient(RecordsServiceClient, recordsAddr);
  const settings = { deadlineMs: DEADLINE_MS, token };
  const access = createCaller(
    connectClient(AccessServiceClient, recordsAddr, recordsClient),
    settings,
  );
  const records = createCaller(recordsClient, settings);
  const usage = createCaller(
    connectClient(UsageServiceClient, recordsAddr, recordsClient),
    settings,
  );
  const listRecordsPage = (req: ListRecordsInput): Promise<ListRecordsPageResponse> =>
    records('listRecordsPage', {
      ...req,
      resource: resourceValue(req.resource),
      with_change_version: req.with_change_version ?? false,
    });

  return {
    access,
    usage,
    records,
    async createBrand(opts = {}) {
      const res = await access('createBrand', {
        name: opts.name ?? `Test Brand ${randomHex(3)}`,
        tier: tierValue(opts.tier ?? 'plus'),
        verified: opts.verified ?? true,
        owner_email: opts.ownerEmail ?? `owner@${randomHex(4)}.test`,
      });
      return { brand: present(res.brand, 'brand'), owner: present(res.owner, 'owner') };
    },
    async listBrands() {
      return (await access('listBrands', {})).brands;
    },
    async updateBrand(opts) {
      const res = await access('updateBrand', {
        brand_id: opts.brandId,
        tier: opts.tier === undefined ? undefined : tierValue(opts.tier),
        verified: opts.verified,
        sign_in_policy: opts.signInPolicy,
        actor_email: '',
      });
      return present(res.brand, 'brand');
    },
    async addMember(opts) {
      const req = { brand_id: opts.brandId, email: opts.email, role: roleValue(opts.role) };
      return present((await access('addMember', req)).member, 'member');
    },
    async createKey(opts) {
      const res = await access('createKey', {
        brand_id: opts.brandId,
        name: opts.name ?? 'Test integration',
        environment: environmentValue(opts.environment ?? 'live'),
        actor_email: opts.actorEmail,
        permissions: opts.permissions ?? [],
        allowed_networks: opts.allowedNetworks ?? [],
      });
      return { key: present(res.key, 'key'), secret: res.secret };
    },
    async listKeys(brandId) {
      return (await access('listKeys', { brand_id: brandId })).keys;
    },
    async revokeKey(keyId, actorEmail = '') {
      const res = await access('revokeKey', { key_id: keyId, actor_email: actorEmail });
      return present(res.key, 'key');
    },
    async seedDemoData(brandId, scale = 1) {
      const req = { brand_id: brandId, scale };
      return (await records('seedDemoData', req, { deadlineMs: SEED_DEADLINE_MS })).created;
    },
    listRecordsPage,
    async listPageRecords(req) {
      const page = await listRecordsPage(req);
      return { records: pageRecords(page), next_cursor: page.next_cursor };
    },
    authenticateKey(keyHashHex, environment, opts = {}) {
      const req = {
        key_hash: keyHashHex,
        environment: environmentValue(environment),
        enforces_networks: opts.enforcesNetworks ?? true,
      };
      return access('authenticateKey', req);
    },
    close() {
      recordsClient.close();
    },
  };
}
