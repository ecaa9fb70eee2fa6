/** Service accounts (machine identities) and their tokens; tokens are stored only as SHA-256 hashes. */
import { prepared, type Queryable } from '../lib/db.ts';
import { equalityFilters, type ListSource } from './pagination.ts';

export interface ServiceAccountRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  name: string;
  scopes: string[];
  status: 'active';
  created_by: string | null;
  created_at: Date;
}

export interface ServiceAccountTokenRow extends Record<string, unknown> {
  id: string;
  service_account_id: string;
  workspace_id: string;
  name: string;
  expires_at: Date;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/** Null when the name is taken in this workspace. */
export async function insertServiceAccount(
  db: Queryable,
  workspaceId: string,
  name: string,
  scopes: string[],
  createdBy: string,
): Promise<ServiceAccountRow | null> {
  const { rows } = await db.query<ServiceAccountRow>(
    `insert into service_accounts (workspace_id, name, scopes, created_by) values ($1, $2, $3, $4)
     on conflict (workspace_id, name) do nothing returning *`,
    [workspaceId, name, scopes, createdBy],
  );
  return rows[0] ?? null;
}

export async function findServiceAccount(db: Queryable, workspaceId: string, id: string): Promise<ServiceAccountRow | null> {
  const { rows } = await db.query<ServiceAccountRow>('select * from service_accounts where workspace_id = $1 and id::text = $2', [workspaceId, id]);
  return rows[0] ?? null;
}

export async function deleteServiceAccount(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const result = await db.query('delete from service_accounts where workspace_id = $1 and id::text = $2', [workspaceId, id]);
  return (result.rowCount ?? 0) > 0;
}

export async function insertServiceAccountToken(
  db: Queryable,
  account: ServiceAccountRow,
  name: string,
  tokenHash: string,
  expiresAt: Date,
): Promise<ServiceAccountTokenRow> {
  const { rows } = await db.query<ServiceAccountTokenRow>(
    `insert into service_account_tokens (service_account_id, workspace_id, name, token_hash, expires_at)
     values ($1, $2, $3, $4, $5)
     returning id, service_account_id, workspace_id, name, expires_at, created_at, revoked_at, last_used_at`,
    [account.id, account.workspace_id, name, tokenHash, expiresAt],
  );
  return rows[0];
}

export async function revokeServiceAccountToken(
  db: Queryable,
  workspaceId: string,
  accountId: string,
  tokenId: string,
): Promise<ServiceAccountTokenRow | null> {
  const { rows } = await db.query<ServiceAccountTokenRow>(
    `update service_account_tokens set revoked_at = coalesce(revoked_at, now())
      where workspace_id = $1 and service_account_id::text = $2 and id::text = $3
      returning id, service_account_id, workspace_id, name, expires_at, created_at, revoked_at, last_used_at`,
    [workspaceId, accountId, tokenId],
  );
  return rows[0] ?? null;
}

const liveServiceAccountToken = prepared(
  'service_account_token_live',
  `select t.id, t.service_account_id, t.workspace_id, a.scopes
     from service_account_tokens t join service_accounts a on a.id = t.service_account_id
    where t.token_hash = $1 and t.revoked_at is null and t.expires_at > $2 and a.status = 'active'`,
);
/** A live (unrevoked, unexpired at `now`) service-account token with its account's scopes. */
export async function findLiveServiceAccountToken(db: Queryable, tokenHash: string, now: Date) {
  const { rows } = await db.query<{ id: string; service_account_id: string; workspace_id: string; scopes: string[] }>(
    liveServiceAccountToken([tokenHash, now]),
  );
  return rows[0] ?? null;
}

export async function touchServiceAccountToken(db: Queryable, id: string): Promise<void> {
  await db.query('update service_account_tokens set last_used_at = now() where id = $1', [id]);
}

/** GET /v1/service-accounts. */
export function serviceAccountList(workspaceId: string): ListSource {
  return {
    ...equalityFilters({ workspace_id: workspaceId }),
    select: '*',
    from: 'service_accounts',
    sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' }, name: { expr: 'name', type: 'text' } },
    idExpr: 'id',
  };
}

/** GET /v1/service-accounts/{id}/tokens: metadata only, never a hash. */
export function serviceAccountTokenList(workspaceId: string, serviceAccountId: string): ListSource {
  return {
    ...equalityFilters({ workspace_id: workspaceId, service_account_id: serviceAccountId }),
    select: 'id, service_account_id, workspace_id, name, expires_at, created_at, revoked_at, last_used_at',
    from: 'service_account_tokens',
    sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' } },
    idExpr: 'id',
  };
}
