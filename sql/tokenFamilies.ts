/**
 * Sign-in sessions of human users on /v1: a token family per exchange, refresh tokens rotating
 * inside it. Presenting a refresh token that was already rotated revokes the whole family.
 */
import { prepared, type Queryable } from '../lib/db.ts';
import type { SignInMethod } from '../domain/signInPolicy.ts';

export interface FamilyRow {
  id: string;
  user_id: string;
  workspace_id: string;
  scopes: string[];
  method: SignInMethod;
  created_at: Date;
  revoked_at: Date | null;
}

export interface RefreshTokenRow {
  id: string;
  family_id: string;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  rotated_at: Date | null;
}

/** `createdAt` (the application clock) starts the family's absolute lifetime; default the database's now(). */
export async function insertFamily(
  db: Queryable,
  userId: string,
  workspaceId: string,
  scopes: string[],
  createdAt?: Date,
  method: SignInMethod = 'exchange',
): Promise<FamilyRow> {
  const { rows } = await db.query<FamilyRow>(
    'insert into token_families (user_id, workspace_id, scopes, created_at, method) values ($1, $2, $3, coalesce($4, now()), $5) returning *',
    [userId, workspaceId, scopes, createdAt ?? null, method],
  );
  return rows[0];
}

export async function insertRefreshToken(db: Queryable, familyId: string, tokenHash: string, expiresAt: Date): Promise<RefreshTokenRow> {
  const { rows } = await db.query<RefreshTokenRow>('insert into refresh_tokens (family_id, token_hash, expires_at) values ($1, $2, $3) returning *', [
    familyId,
    tokenHash,
    expiresAt,
  ]);
  return rows[0];
}

/** The refresh token and its family, row-locked for rotation. */
export async function lockRefreshToken(db: Queryable, tokenHash: string): Promise<{ token: RefreshTokenRow; family: FamilyRow } | null> {
  const { rows } = await db.query<
    RefreshTokenRow & {
      f_user_id: string;
      f_workspace_id: string;
      f_scopes: string[];
      f_method: SignInMethod;
      f_created_at: Date;
      f_revoked_at: Date | null;
    }
  >(
    `select r.*, f.user_id as f_user_id, f.workspace_id as f_workspace_id, f.scopes as f_scopes, f.method as f_method,
            f.created_at as f_created_at, f.revoked_at as f_revoked_at
       from refresh_tokens r join token_families f on f.id = r.family_id
      where r.token_hash = $1
      for update of r, f`,
    [tokenHash],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    token: { id: r.id, family_id: r.family_id, token_hash: r.token_hash, created_at: r.created_at, expires_at: r.expires_at, rotated_at: r.rotated_at },
    family: {
      id: r.family_id,
      user_id: r.f_user_id,
      workspace_id: r.f_workspace_id,
      scopes: r.f_scopes,
      method: r.f_method,
      created_at: r.f_created_at,
      revoked_at: r.f_revoked_at,
    },
  };
}

export async function markRotated(db: Queryable, id: string): Promise<void> {
  await db.query('update refresh_tokens set rotated_at = now() where id = $1', [id]);
}

export async function revokeFamily(db: Queryable, familyId: string, reason: string): Promise<void> {
  await db.query('update token_families set revoked_at = coalesce(revoked_at, now()), revoked_reason = coalesce(revoked_reason, $2) where id = $1', [
    familyId,
    reason,
  ]);
}

const liveSignInStatement = prepared(
  'token_family_live_sign_in',
  `select m.role, (w.sso_required and f.method <> 'sso') as sso_required,
          (w.mfa_required and not exists (select 1 from mfa_factors x where x.user_id = f.user_id and x.status = 'verified')) as mfa_missing
     from token_families f
     join memberships m on m.workspace_id = f.workspace_id and m.user_id = f.user_id
     join workspaces w on w.id = f.workspace_id
    where f.id = $1 and f.user_id = $2 and f.workspace_id = $3 and f.revoked_at is null`,
);

/**
 * A live sign-in (the family is not revoked and the membership still exists): the member's current
 * role, whether the workspace now enforces SSO on a sign-in that did not come through it, and whether
 * it enforces MFA on a member without a verified factor. One prepared query: it runs on every bearer request.
 */
export async function liveSignIn(
  db: Queryable,
  familyId: string,
  userId: string,
  workspaceId: string,
): Promise<{ role: string; ssoRequired: boolean; mfaMissing: boolean } | null> {
  const { rows } = await db.query<{ role: string; sso_required: boolean; mfa_missing: boolean }>(liveSignInStatement([familyId, userId, workspaceId]));
  const row = rows[0];
  return row ? { role: row.role, ssoRequired: row.sso_required, mfaMissing: row.mfa_missing } : null;
}

/** Revokes every live token family of a user in a workspace (their tokens stop working at once). */
export async function revokeUserFamilies(db: Queryable, workspaceId: string, userId: string, reason: string): Promise<void> {
  await db.query(`update token_families set revoked_at = now(), revoked_reason = $3 where workspace_id = $1 and user_id = $2 and revoked_at is null`, [
    workspaceId,
    userId,
    reason,
  ]);
}
