import {
  AccessServiceClient,
  type AddMemberResponse,
  type ApiKey,
  type AuthenticateKeyResponse,
  type Brand,
  type CreateBrandResponse,
  type CreateKeyResponse,
  type Environment,
  type ListBrandsResponse,
  type ListKeysResponse,
  type Member,
  type Plan,
  type RevokeKeyResponse,
  type Role,
  type UpdateBrandResponse,
} from '@brand/proto/access/v1';
import {
  RecordsServiceClient,
  type ListRecordsResponse,
  type Resource,
  type SeedDemoDataResponse,
} from '@brand/proto/records/v1';
import { callUnary, INTERNAL_TOKEN_METADATA, type UnaryInvoker } from '@brand/shared/grpc';
import type { ResourceName } from '@brand/shared/resources';
import { credentials } from '@grpc/grpc-js';
import {
  environmentValue,
  planValue,
  resourceValue,
  roleValue,
  type EnvironmentName,
  type PlanName,
  type RoleName,
} from './protoEnums';
import { randomHex } from './random';
import { TEST_INTERNAL_TOKEN } from './services';

const DEADLINE_MS = 5_000;
/** Seeding writes thousands of rows in one transaction; it gets more than a lookup. */
const SEED_DEADLINE_MS = 60_000;

export interface ListRecordsInput {
  brand_id: string;
  resource: ResourceName | Resource;
  limit?: number;
  cursor?: string;
  since?: string;
}

/**
 * Promise wrappers over the records process's AccessService and RecordsService, as brandctl
 * and the gateway call them. Failures reject with the AppError callUnary makes of them, so
 * tests assert `.code` (e.g. `rejects.toMatchObject({ code: 'invalid_key' })`).
 */
export interface AdminClient {
  /** The raw generated clients, for calls the wrappers do not cover. */
  access: AccessServiceClient;
  records: RecordsServiceClient;
  createBrand(opts?: {
    name?: string;
    plan?: PlanName | Plan;
    verified?: boolean;
    ownerEmail?: string;
  }): Promise<{ brand: Brand; owner: Member }>;
  listBrands(): Promise<Brand[]>;
  updateBrand(opts: {
    brandId: string;
    plan?: PlanName | Plan;
    verified?: boolean;
  }): Promise<Brand>;
  addMember(opts: { brandId: string; email: string; role: RoleName | Role }): Promise<Member>;
  createKey(opts: {
    brandId: string;
    actorEmail: string;
    name?: string;
    environment?: EnvironmentName | Environment;
    permissions?: string[];
  }): Promise<{ key: ApiKey; secret: string }>;
  listKeys(brandId: string): Promise<ApiKey[]>;
  revokeKey(keyId: string, actorEmail?: string): Promise<ApiKey>;
  seedDemoData(brandId: string, scale?: number): Promise<Record<string, number>>;
  /** Data plane: needs no token. */
  listRecords(req: ListRecordsInput): Promise<ListRecordsResponse>;
  /** Data plane: needs no token. */
  authenticateKey(
    keyHashHex: string,
    environment: EnvironmentName | Environment,
  ): Promise<AuthenticateKeyResponse>;
  close(): void;
}

/**
 * Connects to a records process. `token` goes into `x-internal-token` on admin calls; pass
 * '' to send none, or another string to send a wrong one.
 */
export function createAdminClient(recordsAddr: string, token = TEST_INTERNAL_TOKEN): AdminClient {
  const access = new AccessServiceClient(recordsAddr, credentials.createInsecure());
  const records = new RecordsServiceClient(recordsAddr, credentials.createInsecure());
  const adminMetadata: Record<string, string> = token ? { [INTERNAL_TOKEN_METADATA]: token } : {};
  const admin = <Res>(invoke: UnaryInvoker<Res>, deadlineMs = DEADLINE_MS) =>
    callUnary(invoke, { deadlineMs, metadata: adminMetadata });
  const data = <Res>(invoke: UnaryInvoker<Res>) => callUnary(invoke, { deadlineMs: DEADLINE_MS });
  const present = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`response without ${what}`);
    return value;
  };

  return {
    access,
    records,
    async createBrand(opts = {}) {
      const req = {
        name: opts.name ?? `Test Brand ${randomHex(3)}`,
        plan: planValue(opts.plan ?? 'plus'),
        verified: opts.verified ?? true,
        owner_email: opts.ownerEmail ?? `owner@${randomHex(4)}.test`,
      };
      const res = await admin<CreateBrandResponse>((md, o, cb) =>
        access.createBrand(req, md, o, cb),
      );
      return { brand: present(res.brand, 'brand'), owner: present(res.owner, 'owner') };
    },
    async listBrands() {
      return (await admin<ListBrandsResponse>((md, o, cb) => access.listBrands({}, md, o, cb)))
        .brands;
    },
    async updateBrand(opts) {
      const req = {
        brand_id: opts.brandId,
        plan: opts.plan === undefined ? undefined : planValue(opts.plan),
        verified: opts.verified,
      };
      const res = await admin<UpdateBrandResponse>((md, o, cb) =>
        access.updateBrand(req, md, o, cb),
      );
      return present(res.brand, 'brand');
    },
    async addMember(opts) {
      const req = { brand_id: opts.brandId, email: opts.email, role: roleValue(opts.role) };
      const res = await admin<AddMemberResponse>((md, o, cb) => access.addMember(req, md, o, cb));
      return present(res.member, 'member');
    },
    async createKey(opts) {
      const req = {
        brand_id: opts.brandId,
        name: opts.name ?? 'Test integration',
        environment: environmentValue(opts.environment ?? 'live'),
        actor_email: opts.actorEmail,
        permissions: opts.permissions ?? [],
      };
      const res = await admin<CreateKeyResponse>((md, o, cb) => access.createKey(req, md, o, cb));
      return { key: present(res.key, 'key'), secret: res.secret };
    },
    async listKeys(brandId) {
      return (
        await admin<ListKeysResponse>((md, o, cb) =>
          access.listKeys({ brand_id: brandId }, md, o, cb),
        )
      ).keys;
    },
    async revokeKey(keyId, actorEmail = '') {
      const req = { key_id: keyId, actor_email: actorEmail };
      const res = await admin<RevokeKeyResponse>((md, o, cb) => access.revokeKey(req, md, o, cb));
      return present(res.key, 'key');
    },
    async seedDemoData(brandId, scale = 1) {
      const req = { brand_id: brandId, scale };
      const res = await admin<SeedDemoDataResponse>(
        (md, o, cb) => records.seedDemoData(req, md, o, cb),
        SEED_DEADLINE_MS,
      );
      return res.created;
    },
    listRecords(req) {
      const request = { ...req, resource: resourceValue(req.resource) };
      return data<ListRecordsResponse>((md, o, cb) => records.listRecords(request, md, o, cb));
    },
    authenticateKey(keyHashHex, environment) {
      const req = { key_hash: keyHashHex, environment: environmentValue(environment) };
      return data<AuthenticateKeyResponse>((md, o, cb) => access.authenticateKey(req, md, o, cb));
    },
    close() {
      access.close();
      records.close();
    },
  };
}
