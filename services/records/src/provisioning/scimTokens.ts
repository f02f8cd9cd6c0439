import { z } from 'zod';
import { refuseUnlessOneLine } from '@brand/shared/text';
import { insertActivity } from '@brand/shared/activity';
import { actorEmail, actorMemberId, authorize, type Actor } from '@brand/shared/console';
import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import { currentActor } from '../access/currentActor';
import { reauthorizeUnderBrand } from '../access/reauthorizeUnderBrand';
import { lockBrandMembers } from '../access/memberRepo';
import { brandId } from '../access/inputs';
import { hashToken, newSecretToken, TOKEN_PATTERN } from '../sessions/tokens';
import {
  countLiveScimTokens,
  endScimToken,
  insertScimToken,
  selectScimToken,
  useScimToken,
  type RevokedScimToken,
  type ScimTokenRow,
} from './scimTokenRepo';

/** A brand holds at most this many live SCIM tokens (one per provider, and their rotations). */
const MAX_LIVE_TOKENS = 5;
/** How long an old token keeps working after a rotation, by the owner's choice. */
const OVERLAPS: Record<string, number> = {
  now: 0,
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
};

const tokenName = z
  .string()
  .trim()
  .min(1, 'Name the token (the provider it is for, e.g. Okta).')
  .max(100, 'At most 100 characters.')
  .superRefine(refuseUnlessOneLine((why) => `The name ${why}.`));
const tokenId = z.string().regex(/^sct_[A-Za-z0-9]{1,64}$/, 'must be a SCIM token id (sct_...)');

const noToken = (id: string) => () => new AppError('not_found', `No SCIM token ${id}.`);

/** The token's secret: a prefix saying what it is, then the random part (43 characters). */
const PREFIX = 'scim_';

/** Who a provider is, once its bearer token is checked: the brand it reaches, and the token. */
export interface ScimCaller {
  brandId: string;
  tokenId: string;
  tokenName: string;
  /** How the activity names it. */
  label: string;
}

/**
 * The brand a presented SCIM token reaches, or unauthenticated (unknown, expired, revoked, or
 * not a token at all: one answer). The token is compared by its SHA-256 in the database.
 */
export async function authenticateScimToken(pool: Pool, presented: string): Promise<ScimCaller> {
  const refused = new AppError('unauthenticated', 'The SCIM token is not valid.');
  if (!presented.startsWith(PREFIX) || !TOKEN_PATTERN.test(presented.slice(PREFIX.length))) {
    throw refused;
  }
  const row = await useScimToken(pool, hashToken(presented));
  if (!row) throw refused;
  return {
    brandId: row.brand_id,
    tokenId: row.id,
    tokenName: row.name,
    label: `SCIM token “${row.name}”`,
  };
}

/** Refuses one more live token when the brand has its limit (the caller holds the brand's lock). */
async function refuseBeyondLiveLimit(db: PoolClient, brandId: string): Promise<void> {
  if ((await countLiveScimTokens(db, brandId)) >= MAX_LIVE_TOKENS) {
    throw new AppError(
      'rate_limited',
      `This brand has ${MAX_LIVE_TOKENS} live SCIM tokens; revoke one first, or rotate with the old one ending now.`,
    );
  }
}

/** The activity summary's words for tokens revoked with their maker ('' for none). */
export function scimTokensWords(tokens: readonly RevokedScimToken[]): string {
  const named = tokens.map((t) => `“${t.name}” (${t.prefix}…)`).join(', ');
  if (tokens.length === 0) return '';
  if (tokens.length === 1) return `; the SCIM token ${named} they made revoked`;
  return `; ${tokens.length} SCIM tokens they made revoked: ${named}`;
}

/** Makes a token for the brand's provider (owners: members.provisioning); its secret once. */
export async function createScimToken(
  pool: Pool,
  actor: Actor,
  input: { brandId: string; name: string },
): Promise<{ token: ScimTokenRow; secret: string }> {
  const v = parseOrThrow(z.object({ brandId, name: tokenName }), input);
  authorize(
    await currentActor(pool, actor),
    'members.provisioning',
    v.brandId,
    () => new AppError('not_found', `No brand ${v.brandId}.`),
  );
  return withTransaction(pool, async (db) => {
    await lockBrandMembers(db, v.brandId);
    // Again under the lock: a removal or demotion committing meanwhile revokes only the tokens
    // already made, so a token made after it would outlive it (a review).
    const who = await reauthorizeUnderBrand(
      db,
      actor,
      'members.provisioning',
      v.brandId,
      () => new AppError('not_found', `No brand ${v.brandId}.`),
    );
    await refuseBeyondLiveLimit(db, v.brandId);
    const secret = `${PREFIX}${newSecretToken()}`;
    const token = await insertScimToken(db, {
      id: newId('scimToken'),
      brandId: v.brandId,
      name: v.name,
      hash: hashToken(secret),
      prefix: secret.slice(0, PREFIX.length + 6),
      createdBy: actorEmail(who),
      createdByMemberId: actorMemberId(who) || null,
    });
    await insertActivity(db, {
      brandId: v.brandId,
      action: 'scim.token_created',
      actorMemberId: actorMemberId(who),
      actorEmail: actorEmail(who),
      subjectId: token.id,
      summary: `SCIM token “${token.name}” (${token.prefix}…) created`,
    });
    return { token, secret };
  });
}

/**
 * Replaces a token with a new one of the same name; the old one keeps working for the overlap
 * the owner chose (now, 1 h, 24 h, 7 days), so the provider's setting can be changed meanwhile.
 */
export async function rotateScimToken(
  pool: Pool,
  actor: Actor,
  input: { tokenId: string; oldTokenExpiresIn: string },
): Promise<{ token: ScimTokenRow; secret: string; replaced: ScimTokenRow }> {
  const v = parseOrThrow(
    z.object({
      tokenId,
      oldTokenExpiresIn: z.enum(Object.keys(OVERLAPS) as [string, ...string[]], {
        message: 'must be one of now, 1h, 24h, 7d',
      }),
    }),
    input,
  );
  const old = await selectScimToken(pool, v.tokenId);
  if (!old) throw noToken(v.tokenId)();
  authorize(
    await currentActor(pool, actor),
    'members.provisioning',
    old.brand_id,
    noToken(v.tokenId),
  );
  return withTransaction(pool, async (db) => {
    await lockBrandMembers(db, old.brand_id);
    const who = await reauthorizeUnderBrand(
      db,
      actor,
      'members.provisioning',
      old.brand_id,
      noToken(v.tokenId),
    );
    const replaced = await endScimToken(db, old.id, {
      expiresInMs: OVERLAPS[v.oldTokenExpiresIn]!,
    });
    if (!replaced) throw noToken(v.tokenId)();
    // The old token may keep working through its overlap, beside its replacement: the limit
    // counts it, or rotating over and over would make live tokens without end. Ending it now
    // ("now") adds none, so an owner at the limit can still rotate.
    await refuseBeyondLiveLimit(db, old.brand_id);
    const secret = `${PREFIX}${newSecretToken()}`;
    const token = await insertScimToken(db, {
      id: newId('scimToken'),
      brandId: old.brand_id,
      name: old.name,
      hash: hashToken(secret),
      prefix: secret.slice(0, PREFIX.length + 6),
      createdBy: actorEmail(who),
      createdByMemberId: actorMemberId(who) || null,
    });
    await insertActivity(db, {
      brandId: old.brand_id,
      action: 'scim.token_rotated',
      actorMemberId: actorMemberId(who),
      actorEmail: actorEmail(who),
      subjectId: token.id,
      summary: `SCIM token “${old.name}” rotated: ${token.prefix}… replaces ${old.prefix}…, which ${v.oldTokenExpiresIn === 'now' ? 'ended now' : `works until ${replaced.expires_at ?? ''}`}`,
    });
    return { token, secret, replaced };
  });
}

/** Ends a token at once. */
export async function revokeScimToken(
  pool: Pool,
  actor: Actor,
  input: { tokenId: string },
): Promise<ScimTokenRow> {
  const v = parseOrThrow(z.object({ tokenId }), input);
  const found = await selectScimToken(pool, v.tokenId);
  if (!found) throw noToken(v.tokenId)();
  authorize(
    await currentActor(pool, actor),
    'members.provisioning',
    found.brand_id,
    noToken(v.tokenId),
  );
  return withTransaction(pool, async (db) => {
    // Again under the brand's row: a revocation queued behind its actor's demotion ended the
    // provider's token on authority they no longer had.
    const who = await reauthorizeUnderBrand(
      db,
      actor,
      'members.provisioning',
      found.brand_id,
      noToken(v.tokenId),
    );
    const ended = await endScimToken(db, found.id, { revoke: true });
    if (!ended) throw noToken(v.tokenId)();
    await insertActivity(db, {
      brandId: found.brand_id,
      action: 'scim.token_revoked',
      actorMemberId: actorMemberId(who),
      actorEmail: actorEmail(who),
      subjectId: found.id,
      summary: `SCIM token “${found.name}” (${found.prefix}…) revoked`,
    });
    return ended;
  });
}
