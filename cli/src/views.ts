import type { ApiKey, Brand, Member } from '@brand/proto/access/v1';
import { ENVIRONMENTS, ROLES, TIERS, type EnumTable } from '@brand/shared/enums';
import { keyAbilities } from '@brand/shared/keys';
import { formatFields, formatTable, shortTime, yesNo } from './output';

/**
 * JSON shapes of what brandctl prints: the proto messages with enums as the words
 * operators type ("plus", "live", "owner") instead of numbers.
 */
/** The operator's word for a wire value; "unspecified" for UNSPECIFIED or unknown numbers. */
const nameOf = (table: EnumTable<string, number>, value: number): string =>
  table.fromProto(value) ?? 'unspecified';
const tierName = (value: number): string => nameOf(TIERS, value);
const environmentName = (value: number): string => nameOf(ENVIRONMENTS, value);
export const roleName = (value: number): string => nameOf(ROLES, value);

export const brandJson = (b: Brand) => ({
  id: b.id,
  name: b.name,
  tier: tierName(b.tier),
  verified: b.verified,
  sign_in_policy: b.sign_in_policy,
  created_at: b.created_at,
});

export const memberJson = (m: Member) => ({
  id: m.id,
  brand_id: m.brand_id,
  email: m.email,
  role: roleName(m.role),
  created_at: m.created_at,
});

/**
 * A key as JSON: never the secret (the proto message has no field for it). `permissions` is
 * everything the key may do, as the text shows it: records:read, which every key has, then
 * what was granted (the service stores only the grants).
 */
export const keyJson = (k: ApiKey) => ({
  id: k.id,
  brand_id: k.brand_id,
  name: k.name,
  environment: environmentName(k.environment),
  prefix: k.prefix,
  permissions: keyAbilities(k.permissions),
  created_at: k.created_at,
  created_by: k.created_by,
  last_used_at: k.last_used_at ?? null,
  revoked_at: k.revoked_at ?? null,
  expires_at: k.expires_at ?? null,
  replaced_by: k.replaced_by ?? null,
  // issue 63: empty means any network
  allowed_networks: k.allowed_networks,
});

export function brandFields(b: Brand, owner?: Member): string {
  const fields: Array<[string, string]> = [
    ['id', b.id],
    ['name', b.name],
    ['tier', tierName(b.tier)],
    ['verified', yesNo(b.verified)],
    ['sign-in', b.sign_in_policy],
  ];
  if (owner) fields.push(['owner', owner.email]);
  fields.push(['created', shortTime(b.created_at)]);
  return formatFields(fields);
}

export function brandTable(brands: Brand[]): string {
  return formatTable(
    ['ID', 'NAME', 'TIER', 'VERIFIED', 'CREATED'],
    brands.map((b) => [b.id, b.name, tierName(b.tier), yesNo(b.verified), shortTime(b.created_at)]),
  );
}

/** Every key reads records (records:read); opt-in permissions are listed after that, as in JSON. */
export const permissionsText = (permissions: string[]): string =>
  keyAbilities(permissions).join(', ');

export function keyFields(k: ApiKey): string {
  const fields: Array<[string, string]> = [
    ['id', k.id],
    ['brand', k.brand_id],
    ['name', k.name],
    ['prefix', k.prefix],
    ['environment', environmentName(k.environment)],
    ['permissions', permissionsText(k.permissions)],
    ['created', `${shortTime(k.created_at)} by ${k.created_by}`],
  ];
  if (k.revoked_at) fields.push(['revoked', shortTime(k.revoked_at)]);
  if (k.expires_at) fields.push(['expires', shortTime(k.expires_at)]);
  if (k.replaced_by) fields.push(['replaced by', k.replaced_by]);
  fields.push([
    'networks',
    k.allowed_networks.length > 0 ? k.allowed_networks.join(', ') : 'any network',
  ]);
  return formatFields(fields);
}

export function keyTable(keys: ApiKey[]): string {
  return formatTable(
    [
      'ID',
      'PREFIX',
      'NAME',
      'ENV',
      'PERMISSIONS',
      'CREATED',
      'CREATED BY',
      'LAST USED',
      'REVOKED',
      'EXPIRES',
    ],
    keys.map((k) => [
      k.id,
      k.prefix,
      k.name,
      environmentName(k.environment),
      permissionsText(k.permissions),
      shortTime(k.created_at),
      k.created_by,
      shortTime(k.last_used_at),
      shortTime(k.revoked_at),
      shortTime(k.expires_at),
    ]),
  );
}

/**
 * The one and only display of a key's secret (docs/contract.md#authentication, rules 2 and 6): labelled, set apart, and
 * followed by the warning that it cannot be shown again and belongs on a server.
 */
export function secretBlock(secret: string): string {
  return ['Secret (shown once):', '', `    ${secret}`, '', SECRET_WARNING].join('\n');
}

export const SECRET_WARNING =
  'Copy it now: it will not be shown again. Keep it server-side (an environment variable or a\n' +
  'secret store), never in browser code, repositories, screenshots or support messages.';
