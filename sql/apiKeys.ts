/** Workspace API keys (issued by client provisioning), stored only as SHA-256 hashes. */
import type { Queryable } from '../lib/db.ts';

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
    `select id, workspace_id, note, scopes, created_at from api_keys where token_hash = $1 and revoked_at is null`,
    [tokenHash],
  );
  return rows[0] ?? null;
}

export async function touchApiKey(db: Queryable, id: string): Promise<void> {
  await db.query('update api_keys set last_used_at = now() where id = $1', [id]);
}
