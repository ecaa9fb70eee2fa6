/**
 * Workspace API keys (issued by client provisioning or POST /v1/api-keys), stored only as SHA-256
 * hashes. A key authenticates until it is revoked or its optional `expires_at` has passed.
 */
import type { Queryable } from '../lib/db.ts';
import type { ListSource } from './pagination.ts';

export interface ApiKeyRow {
  id: string;
  workspace_id: string;
  note: string;
  scopes: string[];
  created_at: Date;
}

export async function insertApiKey(db: Queryable, workspaceId: string, note: string, tokenHash: string, scopes: readonly string[]): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `insert into api_keys (workspace_id, note, token_hash, scopes) values ($1, $2, $3, $4)
     returning id, workspace_id, note, scopes, created_at`,
    [workspaceId, note, tokenHash, scopes],
  );
  return rows[0];
}

export async function findLiveApiKey(db: Queryable, tokenHash: string): Promise<ApiKeyRow | null> {
  const { rows } = await db.query<ApiKeyRow>(
    `select id, workspace_id, note, scopes, created_at from api_keys
      where token_hash = $1 and revoked_at is null and (expires_at is null or expires_at > now())`,
    [tokenHash],
  );
  return rows[0] ?? null;
}

export async function touchApiKey(db: Queryable, id: string): Promise<void> {
  await db.query('update api_keys set last_used_at = now() where id = $1', [id]);
}

/** A key's metadata as GET /v1/api-keys shows it (never the hash). */
export interface ApiKeyMetadataRow extends ApiKeyRow {
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}
const METADATA = 'id, workspace_id, note, scopes, created_at, expires_at, revoked_at, last_used_at';
export const API_KEY_METADATA_COLUMNS = METADATA;

export async function issueApiKey(
  db: Queryable,
  workspaceId: string,
  note: string,
  tokenHash: string,
  scopes: readonly string[],
  expiresAt: Date | null,
): Promise<ApiKeyMetadataRow> {
  const { rows } = await db.query<ApiKeyMetadataRow>(
    `insert into api_keys (workspace_id, note, token_hash, scopes, expires_at) values ($1, $2, $3, $4, $5) returning ${METADATA}`,
    [workspaceId, note, tokenHash, scopes, expiresAt],
  );
  return rows[0];
}

export async function findApiKey(db: Queryable, workspaceId: string, id: string): Promise<ApiKeyMetadataRow | null> {
  const { rows } = await db.query<ApiKeyMetadataRow>(`select ${METADATA} from api_keys where workspace_id = $1 and id::text = $2`, [workspaceId, id]);
  return rows[0] ?? null;
}

/** Sets or clears the expiry of a key that is not revoked; null when there is no such key. */
export async function setApiKeyExpiry(db: Queryable, workspaceId: string, id: string, expiresAt: Date | null): Promise<ApiKeyMetadataRow | null> {
  const { rows } = await db.query<ApiKeyMetadataRow>(
    `update api_keys set expires_at = $3 where workspace_id = $1 and id::text = $2 and revoked_at is null returning ${METADATA}`,
    [workspaceId, id, expiresAt],
  );
  return rows[0] ?? null;
}

/** Revokes a key (revoking twice keeps the first time); null when the workspace has no such key. */
export async function revokeApiKey(db: Queryable, workspaceId: string, id: string): Promise<ApiKeyMetadataRow | null> {
  const { rows } = await db.query<ApiKeyMetadataRow>(
    `update api_keys set revoked_at = coalesce(revoked_at, now()) where workspace_id = $1 and id::text = $2 returning ${METADATA}`,
    [workspaceId, id],
  );
  return rows[0] ?? null;
}

/** GET /v1/api-keys: metadata only, never a hash. */
export function apiKeyList(workspaceId: string): ListSource {
  return {
    select: API_KEY_METADATA_COLUMNS,
    from: 'api_keys',
    where: ['workspace_id = $1'],
    params: [workspaceId],
    sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' } },
    idExpr: 'id',
  };
}
