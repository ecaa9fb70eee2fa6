/** E-mail domains claimed by workspaces and their DNS verification (one workspace per verified domain). */
import { insertOrRead, type Queryable } from '../lib/db.ts';
import type { ListSource } from './pagination.ts';

export interface WorkspaceDomainRow {
  id: string;
  workspace_id: string;
  domain: string;
  verification_token: string;
  created_at: Date;
  verified_at: Date | null;
}

/** The workspace's claim of `domain`, created on first call (the same token on a repeat). */
export async function claimDomain(db: Queryable, workspaceId: string, domain: string, token: string): Promise<WorkspaceDomainRow> {
  return insertOrRead<WorkspaceDomainRow>(
    db,
    {
      text: `insert into workspace_domains (workspace_id, domain, verification_token) values ($1, $2, $3)
             on conflict (workspace_id, domain) do nothing returning *`,
      values: [workspaceId, domain, token],
    },
    { text: 'select * from workspace_domains where workspace_id = $1 and domain = $2', values: [workspaceId, domain] },
  );
}

export async function findDomain(db: Queryable, workspaceId: string, id: string): Promise<WorkspaceDomainRow | null> {
  const { rows } = await db.query<WorkspaceDomainRow>('select * from workspace_domains where workspace_id = $1 and id::text = $2', [workspaceId, id]);
  return rows[0] ?? null;
}

/** The workspace that has verified `domain`, if any. */
export async function verifiedOwner(db: Queryable, domain: string): Promise<string | null> {
  const { rows } = await db.query<{ workspace_id: string }>('select workspace_id from workspace_domains where domain = $1 and verified_at is not null', [
    domain,
  ]);
  return rows[0]?.workspace_id ?? null;
}

/** Marks the claim verified; false when another workspace verified the domain first. */
export async function markDomainVerified(db: Queryable, id: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `update workspace_domains d set verified_at = coalesce(d.verified_at, $2)
      where d.id = $1 and not exists (select 1 from workspace_domains o where o.domain = d.domain and o.verified_at is not null and o.id <> d.id)`,
    [id, now],
  );
  return (rowCount ?? 0) > 0;
}

export async function deleteDomain(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('delete from workspace_domains where workspace_id = $1 and id::text = $2', [workspaceId, id]);
  return (rowCount ?? 0) > 0;
}

/** GET /v1/domains. */
export function domainList(workspaceId: string): ListSource {
  return {
    select: '*',
    from: 'workspace_domains',
    where: ['workspace_id = $1'],
    params: [workspaceId],
    sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' } },
    idExpr: 'id',
  };
}

/** The organization whose workspace has verified `domain`, if any. */
export async function verifiedDomainOrganization(db: Queryable, domain: string): Promise<string | null> {
  const { rows } = await db.query<{ organization_id: string }>(
    `select w.organization_id from workspace_domains d join workspaces w on w.id = d.workspace_id where d.domain = lower($1) and d.verified_at is not null`,
    [domain],
  );
  return rows[0]?.organization_id ?? null;
}
