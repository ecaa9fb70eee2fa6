/**
 * Connectors (CONTRACT.md): `webhook` (inbound push, verified with the secret of the webhook tied to
 * it) and `http_pull` (a JSON endpoint polled with a stored cursor). A sync's outcome and cursor are
 * kept on the row.
 */
import type { Queryable } from '../lib/db.ts';
import { equalityFilters, type ListSource } from './pagination.ts';
import { isUuid } from '../lib/ids.ts';

export const connectorKinds = ['webhook', 'http_pull'] as const;
export type ConnectorKind = (typeof connectorKinds)[number];

export interface ConnectorRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  name: string;
  kind: ConnectorKind;
  config: Record<string, unknown>;
  sync_cursor: string | null;
  last_synced_at: Date | null;
  last_sync_status: 'succeeded' | 'failed' | null;
  last_sync_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertConnector(
  db: Queryable,
  workspaceId: string,
  c: { name: string; kind: ConnectorKind; config: Record<string, unknown> },
): Promise<ConnectorRow> {
  const { rows } = await db.query<ConnectorRow>('insert into connectors (workspace_id, name, kind, config) values ($1, $2, $3, $4) returning *', [
    workspaceId,
    c.name,
    c.kind,
    JSON.stringify(c.config),
  ]);
  return rows[0];
}

export async function findConnector(db: Queryable, workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<ConnectorRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<ConnectorRow>(`select * from connectors where workspace_id = $1 and id = $2 ${options.lock ? 'for update' : ''}`, [
    workspaceId,
    id,
  ]);
  return rows[0] ?? null;
}

/** Any workspace's connector (the inbound route is public; the signature decides). */
export async function findConnectorById(db: Queryable, id: string): Promise<ConnectorRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<ConnectorRow>('select * from connectors where id = $1', [id]);
  return rows[0] ?? null;
}

/** A config change starts a pull from the beginning again (the cursor belonged to the old source). */
export async function updateConnector(
  db: Queryable,
  workspaceId: string,
  id: string,
  patch: { name?: string; config?: Record<string, unknown> },
): Promise<ConnectorRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<ConnectorRow>(
    `update connectors set name = coalesce($3, name), config = coalesce($4, config),
       sync_cursor = case when $4::jsonb is not null and $4::jsonb is distinct from config then null else sync_cursor end, updated_at = now()
     where workspace_id = $1 and id = $2 returning *`,
    [workspaceId, id, patch.name ?? null, patch.config ? JSON.stringify(patch.config) : null],
  );
  return rows[0] ?? null;
}

export async function deleteConnector(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const { rowCount } = await db.query('delete from connectors where workspace_id = $1 and id = $2', [workspaceId, id]);
  return rowCount === 1;
}

/** Stores the cursor reached by a page of a sync (committed with that page's ingest). */
export async function saveSyncCursor(db: Queryable, id: string, cursor: string | null): Promise<void> {
  await db.query('update connectors set sync_cursor = $2, updated_at = now() where id = $1', [id, cursor]);
}

export async function recordSyncOutcome(db: Queryable, id: string, status: 'succeeded' | 'failed', error: string | null): Promise<void> {
  await db.query('update connectors set last_synced_at = now(), last_sync_status = $2, last_sync_error = $3, updated_at = now() where id = $1', [
    id,
    status,
    error,
  ]);
}

export async function recordInboundDelivery(
  db: Queryable,
  d: { workspaceId: string; connectorId: string; status: 'succeeded' | 'failed'; error: string | null; payloadPreview: string; issueIds: string[] },
): Promise<{ id: string }> {
  const { rows } = await db.query<{ id: string }>(
    `insert into inbound_deliveries (workspace_id, connector_id, status, error, payload_preview, issue_ids) values ($1, $2, $3, $4, $5, $6) returning id`,
    [d.workspaceId, d.connectorId, d.status, d.error, d.payloadPreview, d.issueIds],
  );
  return rows[0];
}

/** GET /v1/connectors. */
export function connectorList(workspaceId: string): ListSource {
  return {
    ...equalityFilters({ workspace_id: workspaceId }),
    select: '*',
    from: 'connectors',
    sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' }, name: { expr: 'name', type: 'text' } },
    idExpr: 'id',
  };
}
